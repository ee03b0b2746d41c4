package app

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

// EventModelPull carries a PullProgress while a model downloads.
const EventModelPull = "model:pull"

// ModelInfo is a model the server offers, as the model picker shows it.
type ModelInfo struct {
	Name       string `json:"name"`
	Tools      bool   `json:"tools"`      // supports native tool calling
	ToolsKnown bool   `json:"toolsKnown"` // the server said either way
	// Embedding marks a model that only makes embeddings (nomic-embed-text):
	// it cannot answer, but serves Settings.EmbedModel.
	Embedding     bool   `json:"embedding,omitempty"`
	ContextLength int    `json:"contextLength"`
	Size          int64  `json:"size"`
	Recommended   bool   `json:"recommended,omitempty"`
	Warning       string `json:"warning,omitempty"`
}

// PullProgress is a model:pull event.
type PullProgress struct {
	Name      string `json:"name"`
	Status    string `json:"status"`
	Completed int64  `json:"completed"`
	Total     int64  `json:"total"`
}

// recommended are the model families known to work well with Loupe's
// tools: "family" matches any tag, "family:tag" that tag.
var recommended = []string{"qwen3:8b", "qwen3:14b", "gpt-oss:20b", "gpt-oss-20b", "mistral-nemo", "devstral"}

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

// ListModels lists the models the configured server offers, marking those
// recommended for Loupe and warning about those without tool support.
func (a *App) ListModels() ([]ModelInfo, error) {
	s, err := a.settings.get()
	if err != nil {
		return nil, wrap(err)
	}
	p, err := a.listingProvider(s)
	if err != nil {
		return nil, wrap(err)
	}
	ctx, cancel := context.WithTimeout(a.life, 20*time.Second)
	defer cancel()
	models, err := p.Models(ctx)
	if err != nil {
		return nil, wrap(err)
	}
	out := make([]ModelInfo, 0, len(models))
	for _, m := range models {
		mi := ModelInfo{Name: m.Name, Tools: m.Tools, ToolsKnown: m.ToolsKnown, Embedding: m.Embedding,
			ContextLength: m.ContextLength, Size: m.Size, Recommended: isRecommended(m.Name)}
		if m.ToolsKnown && !m.Tools && !m.Embedding {
			mi.Warning = "This model has no native tool calling: Loupe falls back to a text protocol, which small models follow less reliably. A recommended model (Qwen3 8B/14B, gpt-oss-20b, Mistral Nemo, Devstral) works better."
			mi.Recommended = false
		}
		out = append(out, mi)
	}
	return out, nil
}

// pullEvery is the shortest gap between two model:pull events of the same
// status.
const pullEvery = 100 * time.Millisecond

// PullModel downloads a model into Ollama, with model:pull progress events
// (thinned to about ten a second, every change of status sent); it returns
// when the model is ready. Only for the Ollama provider. A model Ollama's
// library does not have is CodeNotFound; no server, CodeModelUnreachable.
func (a *App) PullModel(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return newError(CodeInvalid, "Which model? The name is empty.", "Give a model name such as qwen3:8b.")
	}
	s, err := a.settings.get()
	if err != nil {
		return wrap(err)
	}
	if s.Provider != provider.Ollama {
		return newError(CodeInvalid, "Only Ollama can pull models.",
			"Switch the provider to Ollama, or install the model on your OpenAI-compatible server.")
	}
	p, err := ollama.New(ollama.Config{BaseURL: s.OllamaURL})
	if err != nil {
		return newError(CodeInvalid, "The Ollama address is not valid: "+err.Error(), "Fix it in Settings.")
	}
	var (
		last PullProgress
		at   time.Time
	)
	err = p.Pull(a.life, name, func(pr ollama.Progress) {
		ev := PullProgress{Name: name, Status: pr.Status, Completed: pr.Completed, Total: pr.Total}
		if ev.Status != last.Status || time.Since(at) >= pullEvery || ev.Status == "success" {
			last, at = ev, time.Now()
			a.publish(EventModelPull, ev)
		}
	})
	if err != nil {
		if a.life.Err() != nil {
			return wrap(a.life.Err())
		}
		return pullError(name, err)
	}
	a.background(a.refreshStatus)
	return nil
}

func pullError(name string, err error) *Error {
	var e *llm.Error
	if errors.As(err, &e) && e.Kind == llm.ModelNotFound {
		return &Error{Code: CodeNotFound, Message: fmt.Sprintf("Ollama's library has no model %q.", name),
			Hint: "Check the name at ollama.com/library, e.g. qwen3:8b or nomic-embed-text.", Err: err}
	}
	if e != nil && e.Kind == llm.Unreachable {
		return &Error{Code: CodeModelUnreachable, Message: upperFirst(e.Message),
			Hint: "Start Ollama (open the Ollama app, or run `ollama serve`), or fix its address in Settings.", Err: err}
	}
	return &Error{Code: CodeModel, Message: "Pulling " + name + " failed: " + err.Error(),
		Hint: "Check the network and the disk space, then try again.", Err: err}
}
