package ollama

import (
	"context"
	"fmt"

	"github.com/ollama/ollama/api"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/internal/transport"
)

// DefaultEmbedModel is the embedding model suggested when none is set.
const DefaultEmbedModel = "nomic-embed-text"

// Embed returns one vector per text from model (an embedding model such as
// nomic-embed-text) through /api/embed, in order. Inputs longer than the
// model's context are truncated by the server. Transient failures are
// retried; the error is an *llm.Error (ModelNotFound with a hint to pull
// the model) or ctx's.
func (p *Provider) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	if model == "" {
		return nil, &llm.Error{Provider: "ollama", Kind: llm.BadRequest, Err: errNoModel,
			Message: "no embedding model chosen", Hint: fmt.Sprintf("set one, e.g. %s (`ollama pull %s`)", DefaultEmbedModel, DefaultEmbedModel)}
	}
	if len(texts) == 0 {
		return nil, nil
	}
	var out [][]float32
	err := llm.Retry(ctx, p.retry, func(ctx context.Context) error {
		fctx, f := transport.WithFailure(ctx)
		res, err := p.client.Embed(fctx, &api.EmbedRequest{Model: model, Input: texts, KeepAlive: p.keepAlive()})
		if err != nil {
			return p.classify(err, f, model)
		}
		if len(res.Embeddings) != len(texts) {
			return &llm.Error{Provider: "ollama", Kind: llm.StreamBroken,
				Message: fmt.Sprintf("Ollama returned %d embeddings for %d texts", len(res.Embeddings), len(texts))}
		}
		out = res.Embeddings
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (p *Provider) keepAlive() *api.Duration {
	if p.cfg.KeepAlive == nil {
		return nil
	}
	return &api.Duration{Duration: *p.cfg.KeepAlive}
}
