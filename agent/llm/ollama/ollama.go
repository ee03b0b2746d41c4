// Package ollama is Loupe's llm.Provider for a local (or remote) Ollama
// server, over github.com/ollama/ollama/api. It streams /api/chat with
// native tools, sets num_ctx explicitly from the model's context length
// (Ollama's default silently truncates long prompts), keeps the model's
// reasoning out of the answer, retries transient failures, and turns
// failures into *llm.Error with hints a user can act on.
package ollama

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/internal/transport"
)

// DefaultMaxContext caps num_ctx when Config.MaxContext is 0: a model's full
// context (often 128k tokens) can need more memory than a laptop has.
const DefaultMaxContext = 32768

// DefaultKeepAlive is how long a chat model stays loaded after a request
// when Config.KeepAlive is nil: long enough that a follow-up asked after
// reading an answer finds the model loaded, and its cache of the
// conversation's prompt still there (Ollama's own default is 5 minutes).
const DefaultKeepAlive = 30 * time.Minute

// Config configures a Provider.
type Config struct {
	// BaseURL is the server, parsed like OLLAMA_HOST (see ParseHost); empty
	// means http://127.0.0.1:11434.
	BaseURL string
	// Model is used when a Request names none.
	Model string
	// KeepAlive is how long the server keeps the model loaded after a
	// request (negative: forever, 0: unload at once); nil sends
	// DefaultKeepAlive with each chat request and leaves the server's
	// default for embeddings.
	KeepAlive *time.Duration
	// MaxContext caps num_ctx; 0 means DefaultMaxContext.
	MaxContext int
	// Think turns the model's reasoning on or off; nil leaves the model's
	// default. Reasoning is returned as Thinking either way.
	Think *bool
	// StallTimeout, when positive, treats a reply that sends nothing for
	// that long as a broken stream (retried). Zero waits as long as ctx
	// allows: a local model may take minutes to load.
	StallTimeout time.Duration
	Retry        llm.RetryPolicy
	// HTTPClient is the client to use; nil means a default one.
	HTTPClient *http.Client
	Logger     *slog.Logger
}

// Provider talks to one Ollama server. It is safe for concurrent use.
type Provider struct {
	cfg    Config
	base   *url.URL
	client *api.Client  // List and Show
	http   *http.Client // chat streams (see chatStream)
	log    *slog.Logger
	retry  llm.RetryPolicy

	mu   sync.Mutex
	info map[string]modelInfo // by model name, from /api/show
}

// modelInfo is what /api/show says about a model.
type modelInfo struct {
	contextLength int
	caps          []string
}

var _ llm.Provider = (*Provider)(nil)

// New returns a Provider for cfg. It does not contact the server.
func New(cfg Config) (*Provider, error) {
	base, err := ParseHost(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if cfg.MaxContext <= 0 {
		cfg.MaxContext = DefaultMaxContext
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("subsystem", "llm", "provider", "ollama")
	hc := transport.Client(cfg.HTTPClient)
	p := &Provider{cfg: cfg, base: base, log: log, info: map[string]modelInfo{}, http: hc, client: api.NewClient(base, hc)}
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

// Name implements llm.Provider.
func (p *Provider) Name() string { return "ollama" }

// BaseURL is the server's URL.
func (p *Provider) BaseURL() string { return p.base.String() }

// Models lists the local models with their tool capability and context
// length (one /api/show per model).
func (p *Provider) Models(ctx context.Context) ([]llm.Model, error) {
	var list *api.ListResponse
	err := llm.Retry(ctx, p.retry, func(ctx context.Context) error {
		fctx, f := transport.WithFailure(ctx)
		var err error
		list, err = p.client.List(fctx)
		return p.classify(err, f, "")
	})
	if err != nil {
		return nil, err
	}
	out := make([]llm.Model, 0, len(list.Models))
	for _, m := range list.Models {
		info, err := p.show(ctx, m.Name)
		if llm.KindOf(err) == llm.ModelNotFound { // removed since the list
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, llm.Model{Name: m.Name, Size: m.Size, ContextLength: info.contextLength,
			ToolsKnown: len(info.caps) > 0, Tools: slices.Contains(info.caps, "tools"),
			Embedding: slices.Contains(info.caps, "embedding") && !slices.Contains(info.caps, "completion")})
	}
	return out, nil
}

// ContextLength is the num_ctx Chat sends for model: its context length
// capped by MaxContext (MaxContext when the server does not say).
func (p *Provider) ContextLength(ctx context.Context, model string) (int, error) {
	info, err := p.show(ctx, p.model(model))
	if err != nil {
		return 0, err
	}
	return p.numCtx(info), nil
}

// SupportsTools reports whether the server says model takes native tools
// (the "tools" capability of /api/show). known is false when the server
// reports no capabilities at all (older Ollama).
func (p *Provider) SupportsTools(ctx context.Context, model string) (supported, known bool, err error) {
	info, err := p.show(ctx, p.model(model))
	if err != nil || len(info.caps) == 0 {
		return false, false, err
	}
	for _, c := range info.caps {
		if c == "tools" {
			return true, true, nil
		}
	}
	return false, true, nil
}

func (p *Provider) numCtx(info modelInfo) int {
	if info.contextLength <= 0 {
		return p.cfg.MaxContext
	}
	return min(info.contextLength, p.cfg.MaxContext)
}

func (p *Provider) model(m string) string {
	if m == "" {
		return p.cfg.Model
	}
	return m
}

// show returns the model's info, asking the server once per model and
// retrying transient failures.
func (p *Provider) show(ctx context.Context, model string) (modelInfo, error) {
	var info modelInfo
	err := llm.Retry(ctx, p.retry, func(ctx context.Context) error {
		var err error
		info, err = p.cachedShow(ctx, model)
		return err
	})
	return info, err
}

// cachedShow is show without retries, for callers that retry themselves
// (Chat), so that retries do not multiply.
func (p *Provider) cachedShow(ctx context.Context, model string) (modelInfo, error) {
	p.mu.Lock()
	info, ok := p.info[model]
	p.mu.Unlock()
	if ok {
		return info, nil
	}
	info, err := p.showOnce(ctx, model)
	if err != nil {
		return modelInfo{}, err
	}
	p.mu.Lock()
	p.info[model] = info
	p.mu.Unlock()
	return info, nil
}

func (p *Provider) showOnce(ctx context.Context, model string) (modelInfo, error) {
	fctx, f := transport.WithFailure(ctx)
	res, err := p.client.Show(fctx, &api.ShowRequest{Model: model})
	if err != nil {
		return modelInfo{}, p.classify(err, f, model)
	}
	info := modelInfo{contextLength: contextLength(res.ModelInfo)}
	for _, c := range res.Capabilities {
		info.caps = append(info.caps, string(c))
	}
	return info, nil
}

// contextLength reads "<arch>.context_length" from /api/show's model_info.
func contextLength(mi map[string]any) int {
	num := func(v any) int {
		if f, ok := v.(float64); ok {
			return int(f)
		}
		return 0
	}
	if arch, ok := mi["general.architecture"].(string); ok {
		if n := num(mi[arch+".context_length"]); n > 0 {
			return n
		}
	}
	for k, v := range mi {
		if strings.HasSuffix(k, ".context_length") {
			return num(v)
		}
	}
	return 0
}

// errNoModel is returned when neither the request nor the config names a
// model.
var errNoModel = errors.New("no model chosen")
