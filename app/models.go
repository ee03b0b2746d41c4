package app

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/loupeapp/loupe/agent/llm/ollama"
	"github.com/loupeapp/loupe/agent/llm/provider"
)

// EventModelPull carries a PullProgress while a model downloads.
const EventModelPull = "model:pull"

// ModelInfo is a model the server offers, as the model picker shows it.
type ModelInfo struct {
	Name          string `json:"name"`
	Tools         bool   `json:"tools"`      // supports native tool calling
	ToolsKnown    bool   `json:"toolsKnown"` // the server said either way
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
		mi := ModelInfo{Name: m.Name, Tools: m.Tools, ToolsKnown: m.ToolsKnown, ContextLength: m.ContextLength,
			Size: m.Size, Recommended: isRecommended(m.Name)}
		if m.ToolsKnown && !m.Tools {
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

// PullModel downloads a model into Ollama, with model:pull progress events;
// it returns when the model is ready. Only for the Ollama provider.
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
	base, err := ollama.ParseHost(s.OllamaURL)
	if err != nil {
		return newError(CodeInvalid, "The Ollama address is not valid: "+err.Error(), "Fix it in Settings.")
	}
	var (
		mu   sync.Mutex
		last PullProgress
		at   time.Time
	)
	client := api.NewClient(base, http.DefaultClient)
	err = client.Pull(a.life, &api.PullRequest{Model: name}, func(p api.ProgressResponse) error {
		ev := PullProgress{Name: name, Status: p.Status, Completed: p.Completed, Total: p.Total}
		mu.Lock()
		send := ev.Status != last.Status || time.Since(at) >= pullEvery || ev.Status == "success"
		if send {
			last, at = ev, time.Now()
		}
		mu.Unlock()
		if send {
			a.publish(EventModelPull, ev)
		}
		return nil
	})
	if err != nil {
		if a.life.Err() != nil {
			return wrap(a.life.Err())
		}
		return pullError(name, s.OllamaURL, err)
	}
	a.background(a.refreshStatus)
	return nil
}

func pullError(name, host string, err error) *Error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "connection refused") || strings.Contains(msg, "no such host") ||
		strings.Contains(msg, "dial tcp"):
		return &Error{Code: CodeModelUnreachable, Message: "Cannot reach Ollama at " + host,
			Hint: "Start Ollama (open the Ollama app, or run `ollama serve`), or fix its address in Settings.", Err: err}
	case strings.Contains(msg, "file does not exist") || strings.Contains(msg, "not found"):
		return &Error{Code: CodeNotFound, Message: fmt.Sprintf("Ollama's library has no model %q.", name),
			Hint: "Check the name at ollama.com/library, e.g. qwen3:8b.", Err: err}
	}
	return &Error{Code: CodeModel, Message: "Pulling " + name + " failed: " + msg,
		Hint: "Check the network and the disk space, then try again.", Err: err}
}
