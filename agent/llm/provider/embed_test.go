package provider

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
)

func TestOpenEmbedderBothWires(t *testing.T) {
	s := fake.Start(t, fake.Options{APIKey: "sk-x", Models: []fake.Model{
		{Name: "nomic-embed-text", Embedding: true}, {Name: "text-embedding-3-small", Embedding: true}}})
	quiet := slog.New(slog.DiscardHandler)
	for _, cfg := range []Config{
		{EmbedModel: "nomic-embed-text", BaseURL: s.OllamaURL(), Logger: quiet},
		{Provider: OpenAI, EmbedModel: "text-embedding-3-small", BaseURL: s.OpenAIURL(), APIKey: "sk-x", Logger: quiet},
	} {
		e, err := OpenEmbedder(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if e.Model() != cfg.EmbedModel {
			t.Errorf("model %q", e.Model())
		}
		vs, err := e.Embed(context.Background(), []string{"staff", "rain"})
		if err != nil || len(vs) != 2 || len(vs[0]) != fake.Dims || vs[1][3] != fake.Vector("rain")[3] {
			t.Errorf("%s: %d vectors, %v", cfg.Provider, len(vs), err)
		}
	}
	if s.Hits("/api/embed") != 1 || s.Hits("/v1/embeddings") != 1 {
		t.Errorf("requests: %d /api/embed, %d /v1/embeddings", s.Hits("/api/embed"), s.Hits("/v1/embeddings"))
	}
	// the embedding model is checked, not the chat model
	e, err := OpenEmbedder(Config{EmbedModel: "all-minilm", BaseURL: s.OllamaURL(), Logger: quiet,
		Retry: llm.RetryPolicy{Retries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed(context.Background(), []string{"x"}); llm.KindOf(err) != llm.ModelNotFound {
		t.Errorf("a model the server lacks: %v", err)
	}
	var ce *ConfigError
	if _, err := OpenEmbedder(Config{Model: "qwen3:8b"}); !errors.Is(err, ErrNoModel) || !errors.As(err, &ce) {
		t.Errorf("no embedding model: %v", err)
	}
	if _, err := OpenEmbedder(Config{Provider: "cohere", EmbedModel: "embed-v3"}); !errors.Is(err, ErrUnknownProvider) {
		t.Errorf("unknown provider: %v", err)
	}
}
