package valuegate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/agent/llm/valuegate"
)

// A request holding a known value is refused before it is sent; one whose
// values are the user's own words, names in the system prompt, short or
// small, or only part of a longer word, goes through. Both wires.
func TestGate(t *testing.T) {
	vs := valuegate.NewValues()
	for _, v := range []string{"Plainmarkton", "cv-7f3a-0001", "7345111", "Oslo", "ost", "2024", "region", "x@example.org"} {
		vs.Add(v)
	}
	sys := llm.Message{Role: llm.System, Content: "Table sales: region VARCHAR, amount BIGINT"}
	cases := []struct {
		name string
		msgs []llm.Message
		sent bool
	}{
		{"tool result with a value", []llm.Message{sys, {Role: llm.User, Content: "Which city?"}, {Role: llm.Tool, Content: "city: PLAINMARKTON"}}, false},
		{"text-protocol result", []llm.Message{sys, {Role: llm.User, Content: "Which city?"}, {Role: llm.User, Content: "Result of run_sql:\ncv-7f3a-0001"}}, false},
		{"long number", []llm.Message{sys, {Role: llm.User, Content: "Total?"}, {Role: llm.Assistant, Content: "It is 7345111."}}, false},
		{"value in a call's arguments", []llm.Message{sys, {Role: llm.User, Content: "Who?"}, {Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "run_sql", Arguments: []byte(`{"sql":"SELECT 1 WHERE e = 'x@example.org'"}`)}}}}, false},
		{"report brief", []llm.Message{sys, {Role: llm.User, Content: "Question: which city?\nRows:\nplainmarkton"}}, false},
		{"the user's own words", []llm.Message{sys, {Role: llm.User, Content: "Sales in Oslo?"}, {Role: llm.Assistant, Content: "Oslo sold {{q1.total[0]}}."}}, true},
		{"report brief's question", []llm.Message{sys, {Role: llm.User, Content: "Question: sales in Oslo?\nSQL: WHERE city = 'Oslo'"}}, true},
		{"a name in the schema", []llm.Message{sys, {Role: llm.Tool, Content: "by region"}}, true},
		{"short and small values", []llm.Message{sys, {Role: llm.Tool, Content: "ost: 2024 rows"}}, true},
		{"part of a longer word", []llm.Message{sys, {Role: llm.Tool, Content: "Oslotown"}}, true},
	}
	for _, wire := range []string{provider.Ollama, provider.OpenAI} {
		for _, tc := range cases {
			t.Run(wire+"/"+tc.name, func(t *testing.T) {
				srv := fake.Start(t, fake.Options{Turns: []fake.Turn{fake.Text("ok")}})
				url := srv.OllamaURL()
				if wire == provider.OpenAI {
					url = srv.OpenAIURL()
				}
				p, err := provider.Open(provider.Config{Provider: wire, Model: "qwen3:8b", APIKey: "sk", BaseURL: url})
				if err != nil {
					t.Fatal(err)
				}
				g := valuegate.New(p, func(context.Context) (*valuegate.Values, error) { return vs, nil })
				_, err = g.Chat(context.Background(), llm.Request{Model: "qwen3:8b", Messages: tc.msgs}, nil)
				sent := len(srv.Requests()) > 0
				if sent != tc.sent {
					t.Fatalf("sent %v, want %v (err %v)", sent, tc.sent, err)
				}
				if !tc.sent && !errors.Is(err, valuegate.ErrValueInRequest) {
					t.Errorf("a refused request must say why: %v", err)
				}
				if tc.sent && err != nil {
					t.Errorf("unexpected error: %v", err)
				}
			})
		}
	}
}

// A failure to learn the values stops the request.
func TestGateFailsClosed(t *testing.T) {
	srv := fake.Start(t, fake.Options{Turns: []fake.Turn{fake.Text("ok")}})
	p, err := provider.Open(provider.Config{Provider: provider.Ollama, Model: "qwen3:8b", BaseURL: srv.OllamaURL()})
	if err != nil {
		t.Fatal(err)
	}
	g := valuegate.New(p, func(context.Context) (*valuegate.Values, error) { return nil, errors.New("disk gone") })
	if _, err := g.Chat(context.Background(), llm.Request{Model: "qwen3:8b", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil); err == nil || len(srv.Requests()) > 0 {
		t.Fatalf("err %v, %d requests", err, len(srv.Requests()))
	}
}
