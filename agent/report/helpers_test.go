package report

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/loupeapp/loupe/agent/llm"
)

// scripted is a local llm.Provider: it streams a fixed reply in pieces, or
// fails, or waits for ctx to end. It records the requests it got.
type scripted struct {
	reply  string
	pieces []string // streamed instead of reply when set (may include restart markers)
	finish string
	err    error
	block  bool // wait for ctx to end

	mu   sync.Mutex
	reqs []llm.Request
}

var _ llm.Provider = (*scripted)(nil)

// restartMarker in pieces makes the fake send a Restart delta.
const restartMarker = "\x00restart"

func (s *scripted) Chat(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	if s.block {
		<-ctx.Done()
		return llm.Response{}, ctx.Err()
	}
	if s.err != nil {
		return llm.Response{}, s.err
	}
	pieces := s.pieces
	if pieces == nil {
		pieces = []string{s.reply}
	}
	var content string
	for _, p := range pieces {
		if err := ctx.Err(); err != nil {
			return llm.Response{}, err
		}
		if p == restartMarker {
			content = ""
			if onDelta != nil {
				onDelta(llm.Delta{Restart: true})
			}
			continue
		}
		content += p
		if onDelta != nil {
			onDelta(llm.Delta{Content: p})
		}
	}
	finish := s.finish
	if finish == "" {
		finish = "stop"
	}
	return llm.Response{Message: llm.Message{Role: llm.Assistant, Content: content},
		Usage: llm.Usage{PromptTokens: 1000, CompletionTokens: 300}, FinishReason: finish}, nil
}

func (s *scripted) Models(context.Context) ([]llm.Model, error) { return nil, nil }
func (s *scripted) Name() string                                { return "scripted" }

func (s *scripted) requests() []llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Request(nil), s.reqs...)
}

func loadExploration(t testing.TB) Exploration {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "exploration.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e Exploration
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeReport(t testing.TB, reply string) *Report {
	t.Helper()
	rep, err := Write(context.Background(), &scripted{reply: reply}, "test-model", loadExploration(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func noticesOf(rep *Report, kind string) []Notice {
	var out []Notice
	for _, n := range rep.Notices {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}
