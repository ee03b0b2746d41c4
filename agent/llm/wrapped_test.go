package llm_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/ollama"
	"github.com/loupeapp/loupe/agent/llm/openai"
)

// A wrapper is as capable as what it wraps: Ollama's tool support and
// context length come through; OpenAI, which has neither, says so.
func TestWrappedForwardsCapabilities(t *testing.T) {
	s := fake.Start(t, fake.Options{Models: []fake.Model{{Name: "llama3.1:8b", Tools: true, ContextLength: 8192}}})
	quiet := slog.New(slog.DiscardHandler)
	ol, err := ollama.New(ollama.Config{BaseURL: s.OllamaURL(), Model: "llama3.1:8b", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	oa, err := openai.New(openai.Config{BaseURL: s.OpenAIURL(), Model: "llama3.1:8b", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w := llm.Wrapped{Next: ol}
	if ok, known, err := w.SupportsTools(ctx, "llama3.1:8b"); !ok || !known || err != nil {
		t.Errorf("ollama SupportsTools = %v, %v, %v", ok, known, err)
	}
	if n, err := w.ContextLength(ctx, "llama3.1:8b"); n != 8192 || err != nil {
		t.Errorf("ollama ContextLength = %d, %v", n, err)
	}
	if w.Name() != ol.Name() {
		t.Errorf("Name %q", w.Name())
	}
	w = llm.Wrapped{Next: oa}
	if _, known, err := w.SupportsTools(ctx, "llama3.1:8b"); known || err != nil {
		t.Errorf("openai SupportsTools known=%v err=%v, want unknown", known, err)
	}
	if _, err := w.ContextLength(ctx, "llama3.1:8b"); err == nil {
		t.Error("openai ContextLength: want an error")
	}
	if ms, err := w.Models(ctx); err != nil || len(ms) != 1 {
		t.Errorf("Models = %v, %v", ms, err)
	}
}
