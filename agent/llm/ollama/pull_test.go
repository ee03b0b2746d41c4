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

func TestPull(t *testing.T) {
	s := fake.Start(t, fake.Options{Models: []fake.Model{{Name: "qwen3:8b", Tools: true}}, PullStep: time.Millisecond})
	p := newProvider(t, s.OllamaURL(), Config{})
	if _, err := p.Embed(context.Background(), "nomic-embed-text", []string{"x"}); llm.KindOf(err) != llm.ModelNotFound {
		t.Fatalf("before the pull: %v", err)
	}
	var steps []Progress
	if err := p.Pull(context.Background(), "nomic-embed-text", func(pr Progress) { steps = append(steps, pr) }); err != nil {
		t.Fatal(err)
	}
	if len(steps) < 5 || steps[0].Status != "pulling manifest" || steps[len(steps)-1].Status != "success" {
		t.Fatalf("steps %+v", steps)
	}
	var layer int
	for _, st := range steps {
		if st.Digest != "" {
			layer++
			if st.Total <= 0 || st.Completed > st.Total || !strings.HasPrefix(st.Digest, "sha256:") {
				t.Errorf("progress %+v", st)
			}
		}
	}
	if layer == 0 {
		t.Error("no layer progress")
	}
	if _, err := p.Embed(context.Background(), "nomic-embed-text", []string{"x"}); err != nil {
		t.Errorf("after the pull: %v", err)
	}
	err := p.Pull(context.Background(), "no-such-model:1b", nil)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.ModelNotFound || !strings.Contains(e.Message, "no-such-model:1b") || e.Hint == "" {
		t.Errorf("unknown model: %#v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	slow := fake.Start(t, fake.Options{PullStep: time.Second})
	sp := newProvider(t, slow.OllamaURL(), Config{})
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	start := time.Now()
	if err := sp.Pull(ctx, "qwen3:14b", nil); !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Errorf("canceled pull: %v after %s", err, time.Since(start))
	}
	s.Close()
	if err := p.Pull(context.Background(), "qwen3:8b", nil); llm.KindOf(err) != llm.Unreachable {
		t.Errorf("server gone: %v", err)
	}
}
