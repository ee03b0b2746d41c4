package ollama

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
)

func TestEmbed(t *testing.T) {
	s := fake.Start(t, fake.Options{Models: []fake.Model{{Name: "qwen3:8b", Tools: true}, {Name: "nomic-embed-text", Embedding: true}}})
	ka := 5 * time.Minute
	p := newProvider(t, s.OllamaURL(), Config{KeepAlive: &ka})
	texts := []string{"staff roster", "daily rainfall by town", "What is our headcount?"}
	vs, err := p.Embed(context.Background(), "nomic-embed-text", texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vs), len(texts))
	}
	for i, v := range vs {
		want := fake.Vector(texts[i])
		for j := range want {
			if v[j] != want[j] {
				t.Fatalf("vector %d differs from the fake model's at %d", i, j)
			}
		}
	}
	if s.Embedded() != 3 || s.Hits("/api/embed") != 1 {
		t.Errorf("%d texts in %d requests, want 3 in one", s.Embedded(), s.Hits("/api/embed"))
	}
	if vs, err := p.Embed(context.Background(), "nomic-embed-text", nil); err != nil || vs != nil {
		t.Errorf("no texts: %v %v", vs, err)
	}
}

func TestEmbedErrors(t *testing.T) {
	s := fake.Start(t, fake.Options{Models: []fake.Model{{Name: "qwen3:8b", Tools: true}}})
	p := newProvider(t, s.OllamaURL(), Config{})
	_, err := p.Embed(context.Background(), "nomic-embed-text", []string{"x"})
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.ModelNotFound || !strings.Contains(e.Hint, "ollama pull nomic-embed-text") {
		t.Errorf("model not pulled: %#v", err)
	}
	if _, err := p.Embed(context.Background(), "", []string{"x"}); llm.KindOf(err) != llm.BadRequest {
		t.Errorf("no model: %v", err)
	}
	s.FailEmbeddings(fake.Status(400, `"qwen3:8b" does not support embeddings`))
	_, err = p.Embed(context.Background(), "qwen3:8b", []string{"x"})
	if !errors.As(err, &e) || e.Kind != llm.BadRequest || !strings.Contains(e.Hint, "nomic-embed-text") {
		t.Errorf("a chat-only model: %#v", err)
	}
	s.FailEmbeddings(fake.Status(503, "loading"))
	_, err = p.Embed(context.Background(), "qwen3:8b", []string{"x"})
	if llm.KindOf(err) != llm.ServerError || s.Hits("/api/embed") != 2+1+llm.DefaultRetries {
		t.Errorf("server error after retries: %v, %d requests", err, s.Hits("/api/embed"))
	}
	s.Close()
	if _, err := p.Embed(context.Background(), "qwen3:8b", []string{"x"}); llm.KindOf(err) != llm.Unreachable {
		t.Errorf("server gone: %v", err)
	}
}
