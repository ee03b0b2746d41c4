package ollama

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/internal/transport"
)

// Progress is one step of a pull: a status ("pulling manifest", "pulling
// <digest>", "verifying sha256 digest", "success") and, while a layer
// downloads, its digest and bytes.
type Progress struct {
	Status    string
	Digest    string
	Total     int64
	Completed int64
}

// Pull downloads model from Ollama's library into the server (/api/pull),
// calling onProgress (may be nil) from the calling goroutine for each step,
// and returns when the model is ready. It is not retried: a broken pull is
// resumed by pulling again. The error is an *llm.Error (ModelNotFound when
// the library has no such model, Unreachable when no server answers) or
// ctx's.
func (p *Provider) Pull(ctx context.Context, model string, onProgress func(Progress)) error {
	model = strings.TrimSpace(model)
	if model == "" {
		return &llm.Error{Provider: "ollama", Kind: llm.BadRequest, Err: errNoModel,
			Message: "no model named to pull", Hint: "give a model name such as qwen3:8b"}
	}
	fctx, f := transport.WithFailure(ctx)
	var last string
	err := p.client.Pull(fctx, &api.PullRequest{Model: model}, func(r api.ProgressResponse) error {
		last = r.Status
		if onProgress != nil {
			onProgress(Progress{Status: r.Status, Digest: r.Digest, Total: r.Total, Completed: r.Completed})
		}
		return nil
	})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err == nil && last != "success" {
		err = errors.New("the pull ended before it succeeded")
	}
	if err == nil {
		p.mu.Lock()
		delete(p.info, model) // a new version may have other capabilities
		p.mu.Unlock()
		return nil
	}
	err = p.classify(err, f, model)
	var e *llm.Error
	if errors.As(err, &e) && missing(e.Message) {
		e.Kind = llm.ModelNotFound
		e.Message = fmt.Sprintf("Ollama's library has no model %q", model)
		e.Hint = "check the name at ollama.com/library, e.g. qwen3:8b or nomic-embed-text"
	}
	return err
}

// missing reports whether Ollama's message says the library lacks the
// model.
func missing(msg string) bool {
	lower := strings.ToLower(msg)
	return strings.Contains(lower, "file does not exist") || strings.Contains(lower, "manifest unknown") ||
		strings.Contains(lower, "pull model manifest")
}
