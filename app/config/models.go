package config

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/ollama"
	"github.com/loupeapp/loupe/agent/llm/provider"
)

// ModelInfo is a model the server offers, with Loupe's verdict on it.
type ModelInfo struct {
	llm.Model
	Recommended bool
	Warning     string
}

// SuggestedModel is the model a first start suggests pulling: recommended,
// and small enough for a laptop (SuggestedModelSize to download, runs in
// about 6 GB of memory).
const (
	SuggestedModel     = "qwen3:8b"
	SuggestedModelSize = "about 5 GB"
)

// recommended are the model families known to work well with Loupe's
// tools: "family" matches any tag, "family:tag" that tag.
var recommended = []string{"qwen3:8b", "qwen3:14b", "gpt-oss:20b", "gpt-oss-20b", "mistral-nemo", "devstral"}

// toollessWarning is the warning of a model without native tool calling.
const toollessWarning = "This model has no native tool calling: Loupe falls back to a text protocol, which small models follow less reliably. A recommended model (Qwen3 8B/14B, gpt-oss-20b, Mistral Nemo, Devstral) works better."

// isRecommended matches a model name (an Ollama name such as "qwen3:8b",
// or a hosted one such as "openai/gpt-oss-20b") against recommended.
func isRecommended(name string) bool {
	n := strings.ToLower(name)
	if i := strings.LastIndex(n, "/"); i >= 0 {
		n = n[i+1:]
	}
	family, tag, _ := strings.Cut(n, ":")
	for _, r := range recommended {
		rf, rt, hasTag := strings.Cut(r, ":")
		if family != rf {
			continue
		}
		if !hasTag || strings.HasPrefix(tag, rt) {
			return true
		}
	}
	return false
}

// Models lists the models p offers, marking those recommended for Loupe
// and warning about those without tool support.
func Models(ctx context.Context, p llm.Provider) ([]ModelInfo, error) {
	models, err := p.Models(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ModelInfo, 0, len(models))
	for _, m := range models {
		mi := ModelInfo{Model: m, Recommended: isRecommended(m.Name)}
		if m.ToolsKnown && !m.Tools && !m.Embedding {
			mi.Warning, mi.Recommended = toollessWarning, false
		}
		out = append(out, mi)
	}
	return out, nil
}

// PullProgress is how far a model's download is.
type PullProgress struct {
	Name      string
	Status    string
	Completed int64
	Total     int64
}

// pullEvery is the shortest gap between two progress reports of the same
// status.
const pullEvery = 100 * time.Millisecond

// Pull downloads the model name into the Ollama server s names, reporting
// progress (thinned to about ten a second, every change of status sent);
// it returns when the model is ready. Only for the Ollama provider (else
// Kind Invalid). A model Ollama's library does not have is Kind NotFound;
// no server, Kind Unreachable.
func Pull(ctx context.Context, s Settings, name string, progress func(PullProgress)) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return invalid("Which model? The name is empty.", "Give a model name such as qwen3:8b.")
	}
	if s.Provider != provider.Ollama {
		return invalid("Only Ollama can pull models.",
			"Switch the provider to Ollama, or install the model on your OpenAI-compatible server.")
	}
	p, err := ollama.New(ollama.Config{BaseURL: s.OllamaURL})
	if err != nil {
		return invalid("The Ollama address is not valid: "+err.Error(), "Fix it in Settings.")
	}
	var (
		last PullProgress
		at   time.Time
	)
	err = p.Pull(ctx, name, func(pr ollama.Progress) {
		ev := PullProgress{Name: name, Status: pr.Status, Completed: pr.Completed, Total: pr.Total}
		if ev.Status != last.Status || time.Since(at) >= pullEvery || ev.Status == "success" {
			last, at = ev, time.Now()
			progress(ev)
		}
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return pullError(name, err)
	}
	return nil
}

func pullError(name string, err error) *Error {
	var e *llm.Error
	if errors.As(err, &e) && e.Kind == llm.ModelNotFound {
		return &Error{Kind: KindNotFound, Message: fmt.Sprintf("Ollama's library has no model %q.", name),
			Hint: "Check the name at ollama.com/library, e.g. qwen3:8b or nomic-embed-text.", Err: err}
	}
	if e != nil && e.Kind == llm.Unreachable {
		return &Error{Kind: KindUnreachable, Message: upperFirst(e.Message),
			Hint: "Start Ollama (open the Ollama app, or run `ollama serve`), or fix its address in Settings.", Err: err}
	}
	return &Error{Kind: KindModel, Message: "Pulling " + name + " failed: " + err.Error(),
		Hint: "Check the network and the disk space, then try again.", Err: err}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
