package assemble_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/masked"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/data/privacy"
)

// The gate (agent/llm/masked) with the data layer's masker masks what is
// sent and unmasks what comes back, streamed in small chunks that split
// placeholders, on both wires. (It lives here, where the two meet, so that
// agent's tests need nothing of data/.)
func TestGateStreams(t *testing.T) {
	for _, wire := range []string{provider.Ollama, provider.OpenAI} {
		t.Run(wire, func(t *testing.T) {
			srv := fake.Start(t, fake.Options{Turns: []fake.Turn{{
				Content:  "Top: <name_1> (<email_1>), then <name_2>; <name_9> is unknown.",
				Thinking: "I saw <email_1>",
				Chunks:   23,
			}}})
			url := srv.OllamaURL()
			if wire == provider.OpenAI {
				url = srv.OpenAIURL()
			}
			p, err := provider.Open(provider.Config{Provider: wire, Model: "qwen3:8b", APIKey: "sk", BaseURL: url})
			if err != nil {
				t.Fatal(err)
			}
			m := privacy.NewMasker()
			m.Mask("Quillon Vexbridge", privacy.Name)
			m.Mask("Orrin Plaskett", privacy.Name)
			g := masked.New(p, func(context.Context) (masked.Masker, error) { return m, nil })
			var text, thinking strings.Builder
			resp, err := g.Chat(context.Background(), llm.Request{Model: "qwen3:8b", Messages: []llm.Message{
				{Role: llm.System, Content: "rows: Quillon Vexbridge | qv@example.org"},
				{Role: llm.User, Content: "and quillon vexbridge?"},
				{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "run_sql", Arguments: []byte(`{"sql":"SELECT 1 WHERE n = 'Orrin Plaskett'"}`)}}},
				{Role: llm.Tool, ToolCallID: "c1", Name: "run_sql", Content: "Orrin Plaskett"},
			}}, func(d llm.Delta) {
				text.WriteString(d.Content)
				thinking.WriteString(d.Thinking)
			})
			if err != nil {
				t.Fatal(err)
			}
			body := string(srv.Requests()[0].Body)
			for _, v := range []string{"Quillon", "quillon", "Plaskett", "qv@example.org"} {
				if strings.Contains(body, v) {
					t.Errorf("%q was sent: %s", v, body)
				}
			}
			want := "Top: Quillon Vexbridge (qv@example.org), then Orrin Plaskett; <name_9> is unknown."
			if resp.Message.Content != want {
				t.Errorf("reply %q, want %q", resp.Message.Content, want)
			}
			if text.String() != want {
				t.Errorf("streamed %q, want %q", text.String(), want)
			}
			if thinking.String() != "I saw qv@example.org" {
				t.Errorf("thinking streamed %q", thinking.String())
			}
		})
	}
}
