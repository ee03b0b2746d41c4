package provider

import (
	"context"
	"strings"
)

// embedding is a model server that embeds texts with a model it names.
type embedding interface {
	Embed(ctx context.Context, model string, texts []string) ([][]float32, error)
}

// Embedder is one embedding model of one server: what the schema index's
// semantic boost (index.Embedder) takes.
type Embedder struct {
	model string
	srv   embedding
}

// Model names the embedding model.
func (e *Embedder) Model() string { return e.model }

// Embed returns one vector per text, in order; the error is an *llm.Error
// or ctx's.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return e.srv.Embed(ctx, e.model, texts)
}

// OpenEmbedder returns the embedder cfg names: cfg.EmbedModel on cfg's
// server (the chat model need not be set). An empty cfg.EmbedModel is a
// *ConfigError (ErrNoModel): callers leave the boost off instead. It does
// not contact the server.
func OpenEmbedder(cfg Config) (*Embedder, error) {
	model := strings.TrimSpace(cfg.EmbedModel)
	if model == "" {
		return nil, &ConfigError{Err: ErrNoModel, Message: "no embedding model chosen",
			Hint: "set LOUPE_EMBED_MODEL or --embed-model (e.g. nomic-embed-text), or pick one in Settings"}
	}
	cfg.Model = model // only Open's check that a model is named
	p, err := Open(cfg)
	if err != nil {
		return nil, err
	}
	srv, ok := p.(embedding)
	if !ok { // every provider Open returns embeds; a new one must too
		return nil, &ConfigError{Err: ErrBadSetting, Message: "provider " + p.Name() + " cannot embed",
			Hint: "turn the embedding model off"}
	}
	return &Embedder{model: model, srv: srv}, nil
}
