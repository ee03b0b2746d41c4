package report

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/ollama"
	"github.com/loupeapp/loupe/agent/llm/openai"
)

// wires builds a real provider adapter pointed at a fake server.
var wires = []struct {
	name string
	dial func(t *testing.T, s *fake.Server) llm.Provider
}{
	{"ollama", func(t *testing.T, s *fake.Server) llm.Provider {
		p, err := ollama.New(ollama.Config{BaseURL: s.OllamaURL()})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}},
	{"openai", func(t *testing.T, s *fake.Server) llm.Provider {
		p, err := openai.New(openai.Config{BaseURL: s.OpenAIURL()})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}},
}

// TestWriteAndExportThroughTheWire runs stage two end to end: the real SDK
// adapters stream a scripted reply (with reasoning in both the thinking
// field and the content) from the fake server, and the report is exported.
func TestWriteAndExportThroughTheWire(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := fake.New(t, fake.Turn{
				Content:  readTestdata(t, "reply_good.md"),
				Thinking: "Plan the report around q2 and c1.",
				Chunks:   9,
			})
			p := w.dial(t, srv)
			var streamed strings.Builder
			rep, err := Write(context.Background(), p, "qwen3:8b", loadExploration(t), func(s string) { streamed.WriteString(s) })
			if err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || len(reqs[0].Tools) != 0 || len(reqs[0].Messages) != 2 ||
				!strings.Contains(reqs[0].Messages[1].Content, "{{table:q4}}") || reqs[0].Wire != w.name {
				t.Fatalf("requests = %+v", reqs)
			}
			if s := streamed.String(); strings.Contains(s, "cite q2") || !strings.Contains(s, "# East led 2024 revenue") {
				t.Errorf("streamed text: %q", s)
			}
			if got := blockLines(rep.Body); !slices.Equal(got, []string{"chart:c1", "table:q2", "chart:c2", "table:q4", "chart:c3"}) {
				t.Errorf("blocks = %v", got)
			}
			if rep.Provider != p.Name() || rep.Usage.CompletionTokens == 0 {
				t.Errorf("provider %q usage %+v", rep.Provider, rep.Usage)
			}
			dir := filepath.Join(t.TempDir(), "report")
			files, err := Export(context.Background(), rep, dir)
			if err != nil {
				t.Fatal(err)
			}
			md, err := os.ReadFile(files.Markdown)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(md), "![Revenue by region, 2024](charts/c1.svg)") || len(files.Charts) != 3 {
				t.Errorf("export: %+v", files)
			}
		})
	}
}

// A stream cut mid-way is retried by the adapter; the report stream is
// reset and the report is the retried reply.
func TestWriteThroughTheWireSurvivesACutStream(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := fake.New(t,
				fake.Turn{Content: "# Broken first try\n\nThis text is lost.", Chunks: 4, Fail: fake.CutAfter(2)},
				fake.Turn{Content: "# Second try\n\nEast leads.", Chunks: 3},
			)
			var streamed string
			resets := 0
			rep, err := WriteWith(context.Background(), w.dial(t, srv), "qwen3:8b", loadExploration(t), Options{
				OnDelta: func(s string) { streamed += s },
				OnReset: func() { resets++; streamed = "" },
			})
			if err != nil {
				t.Fatal(err)
			}
			if resets != 1 || streamed != "# Second try\n\nEast leads." || rep.Title != "Second try" {
				t.Errorf("resets %d, streamed %q, title %q", resets, streamed, rep.Title)
			}
		})
	}
}

func TestWriteThroughTheWireCancels(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := fake.New(t, fake.Turn{Content: "# T\n\nhanging", Chunks: 4, Fail: fake.HangAfter(1)})
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			start := time.Now()
			_, err := Write(ctx, w.dial(t, srv), "qwen3:8b", loadExploration(t), nil)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if d := time.Since(start); d > 1500*time.Millisecond {
				t.Errorf("cancel took %v", d)
			}
		})
	}
}
