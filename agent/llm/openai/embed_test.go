package openai

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
)

func TestEmbed(t *testing.T) {
	s := fake.Start(t, fake.Options{APIKey: "sk-test", Models: []fake.Model{{Name: "gpt-4.1-mini", Tools: true}, {Name: "text-embedding-3-small", Embedding: true}}})
	p := newProvider(t, s.OpenAIURL(), Config{APIKey: "sk-test"})
	texts := []string{"staff roster", "daily rainfall by town", "What is our headcount?"}
	vs, err := p.Embed(context.Background(), "text-embedding-3-small", texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vs), len(texts))
	}
	for i, v := range vs {
		want := fake.Vector(texts[i])
		if len(v) != len(want) {
			t.Fatalf("vector %d has %d dimensions, want %d", i, len(v), len(want))
		}
		for j := range want {
			if v[j] != want[j] {
				t.Fatalf("vector %d differs from the fake model's at %d", i, j)
			}
		}
	}
	if s.Embedded() != 3 || s.Hits("/v1/embeddings") != 1 {
		t.Errorf("%d texts in %d requests, want 3 in one", s.Embedded(), s.Hits("/v1/embeddings"))
	}
}

func TestEmbedErrors(t *testing.T) {
	s := fake.Start(t, fake.Options{APIKey: "sk-test", Models: []fake.Model{{Name: "gpt-4.1-mini", Tools: true}}})
	p := newProvider(t, s.OpenAIURL(), Config{APIKey: "sk-test"})
	_, err := p.Embed(context.Background(), "text-embedding-3-small", []string{"x"})
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.ModelNotFound || e.Status != 404 || e.Hint == "" {
		t.Errorf("model not offered: %#v", err)
	}
	wrong := newProvider(t, s.OpenAIURL(), Config{APIKey: "sk-wrong"})
	if _, err := wrong.Embed(context.Background(), "gpt-4.1-mini", []string{"x"}); llm.KindOf(err) != llm.Unauthorized {
		t.Errorf("wrong key: %v", err)
	}
	if _, err := p.Embed(context.Background(), "", []string{"x"}); llm.KindOf(err) != llm.BadRequest {
		t.Errorf("no model: %v", err)
	}
	s.FailEmbeddings(fake.RateLimit(0))
	if _, err := p.Embed(context.Background(), "gpt-4.1-mini", []string{"x"}); llm.KindOf(err) != llm.RateLimited {
		t.Errorf("rate limited: %v", err)
	}
	s.FailEmbeddings(nil)
	if _, err := p.Embed(context.Background(), "gpt-4.1-mini", []string{"x"}); err != nil {
		t.Errorf("recovered: %v", err)
	}
}

func TestOrdered(t *testing.T) {
	for _, c := range []struct {
		name, data string
		n          int
		want       []float32 // first element of each vector; nil: an error
	}{
		{"in order", `[{"index":0,"embedding":[1]},{"index":1,"embedding":[2]}]`, 2, []float32{1, 2}},
		{"swapped", `[{"index":1,"embedding":[2]},{"index":0,"embedding":[1]}]`, 2, []float32{1, 2}},
		{"twice the same index", `[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]`, 2, nil},
		{"index out of range", `[{"index":0,"embedding":[1]},{"index":2,"embedding":[2]}]`, 2, nil},
		{"one missing", `[{"index":0,"embedding":[1]}]`, 2, nil},
	} {
		var data []openai.Embedding
		if err := json.Unmarshal([]byte(c.data), &data); err != nil {
			t.Fatal(err)
		}
		got, err := ordered(data, c.n)
		if c.want == nil {
			if err == nil {
				t.Errorf("%s: no error", c.name)
			}
			continue
		}
		if err != nil || len(got) != len(c.want) {
			t.Errorf("%s: %v %v", c.name, got, err)
			continue
		}
		for i, w := range c.want {
			if got[i][0] != w {
				t.Errorf("%s: %v", c.name, got)
			}
		}
	}
}
