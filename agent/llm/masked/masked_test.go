package masked_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/masked"
	"github.com/loupeapp/loupe/agent/llm/provider"
)

// A masker that cannot be prepared stops the request: nothing is sent.
func TestGateFailsClosed(t *testing.T) {
	srv := fake.Start(t, fake.Options{Turns: []fake.Turn{fake.Text("hi")}})
	p, err := provider.Open(provider.Config{Provider: provider.Ollama, Model: "qwen3:8b", BaseURL: srv.OllamaURL()})
	if err != nil {
		t.Fatal(err)
	}
	g := masked.New(p, func(context.Context) (masked.Masker, error) { return nil, errors.New("workspace gone") })
	_, err = g.Chat(context.Background(), llm.Request{Model: "qwen3:8b", Messages: []llm.Message{{Role: llm.User, Content: "x"}}}, nil)
	if !errors.Is(err, masked.ErrPrepare) || !strings.Contains(err.Error(), "workspace gone") {
		t.Fatalf("error %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}
