// Package openai is Loupe's llm.Provider for OpenAI and OpenAI-compatible
// servers (LM Studio, vLLM, llama.cpp server, OpenRouter, Ollama's /v1,
// Azure OpenAI), over github.com/openai/openai-go/v3. It streams chat
// completions over SSE, accumulates tool-call argument deltas by index,
// reads reasoning ("reasoning_content" or "reasoning" deltas, <think> in the
// content) into Thinking, retries transient failures itself (the SDK's own
// retries are off), and turns failures into *llm.Error with hints.
//
// Azure OpenAI is supported through its OpenAI-compatible surface: set
// BaseURL to the v1 endpoint (https://RESOURCE.openai.azure.com/openai/v1)
// or to a deployment (https://RESOURCE.openai.azure.com/openai/deployments/NAME)
// with APIVersion; on Azure hosts, or whenever APIVersion is set, the key
// goes in the "api-key" header and APIVersion in the api-version query.
// Entra ID (token) authentication is not supported.
package openai

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/internal/transport"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a Provider.
type Config struct {
	// BaseURL is the server's API root, usually ending in /v1; empty means
	// DefaultBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token (or Azure's api-key); empty sends
	// none, as local servers (LM Studio, llama.cpp) expect.
	APIKey string
	// Model is used when a Request names none.
	Model string
	// APIVersion is Azure's api-version query parameter.
	APIVersion string
	// StallTimeout, when positive, treats a reply that sends nothing for
	// that long as a broken stream (retried).
	StallTimeout time.Duration
	Retry        llm.RetryPolicy
	// HTTPClient is the client to use; nil means a default one.
	HTTPClient *http.Client
	Logger     *slog.Logger
}

// Provider talks to one OpenAI-compatible server. It is safe for concurrent
// use.
type Provider struct {
	cfg        Config
	base       string
	chat       openai.ChatCompletionService
	models     openai.ModelService
	embeddings openai.EmbeddingService
	log        *slog.Logger
	retry      llm.RetryPolicy
	// maxCompletion sends max_completion_tokens (OpenAI's current name)
	// instead of max_tokens (what compatible servers read).
	maxCompletion bool
	// noCacheKey is set once the server refused a prompt_cache_key: none
	// is sent again.
	noCacheKey atomic.Bool
}

var _ llm.Provider = (*Provider)(nil)

// New returns a Provider for cfg. It does not contact the server.
func New(cfg Config) (*Provider, error) {
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("base URL %q is not an http(s) URL", base)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("subsystem", "llm", "provider", "openai")

	opts := []option.RequestOption{
		option.WithBaseURL(base + "/"),
		option.WithHTTPClient(transport.Client(cfg.HTTPClient)),
		option.WithMaxRetries(0), // ours retry, with Restart deltas
	}
	if azure(u) || cfg.APIVersion != "" {
		if cfg.APIKey != "" {
			opts = append(opts, option.WithHeader("api-key", cfg.APIKey))
		}
		if cfg.APIVersion != "" {
			opts = append(opts, option.WithQuery("api-version", cfg.APIVersion))
		}
	} else if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	p := &Provider{cfg: cfg, base: base, log: log,
		chat:          openai.NewChatCompletionService(opts...),
		models:        openai.NewModelService(opts...),
		embeddings:    openai.NewEmbeddingService(opts...),
		maxCompletion: u.Host == "api.openai.com"}
	p.retry = cfg.Retry
	onRetry := cfg.Retry.OnRetry
	p.retry.OnRetry = func(attempt int, wait time.Duration, err error) {
		log.Warn("retrying", "attempt", attempt, "wait", wait, "err", err)
		if onRetry != nil {
			onRetry(attempt, wait, err)
		}
	}
	return p, nil
}

func azure(u *url.URL) bool {
	h := u.Hostname()
	return strings.HasSuffix(h, ".openai.azure.com") || strings.HasSuffix(h, ".cognitiveservices.azure.com") ||
		strings.HasSuffix(h, ".services.ai.azure.com")
}

// Name implements llm.Provider.
func (p *Provider) Name() string { return "openai" }

// BaseURL is the server's API root.
func (p *Provider) BaseURL() string { return p.base }

// Models lists the models the server offers (GET /models). The wire format
// has no capabilities, so ToolsKnown is false; ContextLength is read from
// the fields servers add (context_length, max_model_len,
// max_context_length, context_window) when present.
func (p *Provider) Models(ctx context.Context) ([]llm.Model, error) {
	var out []llm.Model
	err := llm.Retry(ctx, p.retry, func(ctx context.Context) error {
		fctx, f := transport.WithFailure(ctx)
		page, err := p.models.List(fctx)
		if err != nil {
			return p.classify(err, f, "")
		}
		out = out[:0]
		for _, m := range page.Data {
			out = append(out, llm.Model{Name: m.ID, ContextLength: extraInt(m.JSON.ExtraFields,
				"context_length", "max_model_len", "max_context_length", "context_window")})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (p *Provider) model(m string) string {
	if m == "" {
		return p.cfg.Model
	}
	return m
}
