package openai

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/internal/transport"
)

// Embed returns one vector per text from model (e.g.
// text-embedding-3-small, or whatever embedding model a compatible server
// offers) through /embeddings, in order. Transient failures are retried;
// the error is an *llm.Error or ctx's.
func (p *Provider) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	if model == "" {
		return nil, &llm.Error{Provider: "openai", Kind: llm.BadRequest, Message: "no embedding model chosen",
			Hint: "set one, e.g. text-embedding-3-small, or the embedding model your server lists"}
	}
	if len(texts) == 0 {
		return nil, nil
	}
	var out [][]float32
	err := llm.Retry(ctx, p.retry, func(ctx context.Context) error {
		fctx, f := transport.WithFailure(ctx)
		res, err := p.embeddings.New(fctx, openai.EmbeddingNewParams{Model: openai.EmbeddingModel(model),
			Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
			EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat})
		if err != nil {
			return p.classify(err, f, model)
		}
		vs, err := ordered(res.Data, len(texts))
		if err != nil {
			return &llm.Error{Provider: "openai", Kind: llm.StreamBroken, Err: err,
				Message: fmt.Sprintf("%s sent embeddings Loupe cannot use: %v", p.base, err)}
		}
		out = vs
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ordered puts the embeddings in input order (by their index) as float32.
func ordered(data []openai.Embedding, n int) ([][]float32, error) {
	if len(data) != n {
		return nil, fmt.Errorf("%d embeddings for %d texts", len(data), n)
	}
	out := make([][]float32, n)
	for _, d := range data {
		if d.Index < 0 || int(d.Index) >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("embedding index %d out of place", d.Index)
		}
		v := make([]float32, len(d.Embedding))
		for i, x := range d.Embedding {
			v[i] = float32(x)
		}
		out[d.Index] = v
	}
	return out, nil
}
