package assemble_test

import (
	"context"
	"math"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/tools/tooltest"
)

// BenchmarkPromptPrefix measures how much of each request to the model is
// a verbatim prefix of the request before it — what a model server can
// serve from its cache instead of reading again — on the fake server's
// request log: a question answered in three steps, then a follow-up in the
// same conversation, each with the schema retrieved for it and the
// follow-up's history built by agent.History from the first run's
// transcript, as a session does. It reports the mean share within the runs (each request
// after a run's first, against the one before it) and the follow-up's
// first request against the last request of the question before it.
// Goal: ≥ 0.9 for both.
func BenchmarkPromptPrefix(b *testing.B) {
	for _, wire := range wires {
		b.Run(wire, func(b *testing.B) {
			ws := tooltest.Workspace(b)
			srv := fake.Start(b, fake.Options{Respond: func(r fake.Request) fake.Turn {
				if agenttest.ToolResultsSinceQuestion(r) < 2 {
					return fake.Calls(call("run_sql", map[string]any{"sql": "SELECT count(*) FROM orders"}))
				}
				return fake.Text("There are 40 orders.\n\nFindings:\n- 40 orders [q1]")
			}})
			url := srv.OllamaURL()
			if wire == provider.OpenAI {
				url = srv.OpenAIURL()
			}
			p, err := provider.Open(provider.Config{Provider: wire, Model: "qwen3:8b", BaseURL: url, APIKey: "sk-test"})
			if err != nil {
				b.Fatal(err)
			}
			a, err := assemble.Agent(ws, results.New(results.Config{}), p, "qwen3:8b", assemble.Options{})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			// each question's schema retrieved for it, as a session does
			schema := func(q string) agent.Schema {
				s, _, err := retrieve.Retrieve(ctx, ws, nil, q, retrieve.Budget{})
				if err != nil {
					b.Fatal(err)
				}
				return s
			}
			var within, followUp float64
			for b.Loop() {
				first := len(srv.Requests())
				q1, q2 := "How many orders are there?", "And per customer?"
				out := a.Run(ctx, agent.Input{RunID: "r1", Question: q1, Schema: schema(q1)}, agent.Discard)
				if out.Status != agent.Done {
					b.Fatalf("first question: %s: %s", out.Status, out.Reason)
				}
				second := len(srv.Requests())
				history := agent.History([]agent.Past{{Role: llm.User, Content: q1}, pastAnswer(out)}, agent.HistoryOptions{})
				out = a.Run(ctx, agent.Input{RunID: "r2", Question: q2, History: history, Schema: schema(q2)}, agent.Discard)
				if out.Status != agent.Done {
					b.Fatalf("follow-up: %s: %s", out.Status, out.Reason)
				}
				reqs := srv.Requests()[first:]
				split := second - first
				within, followUp = prefixShares(reqs, split)
			}
			b.ReportMetric(within, "prefix-within-run")
			b.ReportMetric(followUp, "prefix-follow-up")
		})
	}
}

// pastAnswer is a finished run's answer as a session stores it for the
// history: its text, its tool calls with their results, and what the run
// sent.
func pastAnswer(out *agent.Outcome) agent.Past {
	p := agent.Past{Role: llm.Assistant, Content: out.Answer, Status: "complete", Sent: out.Transcript}
	results := map[string]string{}
	for _, m := range out.Transcript {
		if m.Role == llm.Tool {
			results[m.ToolCallID] = m.Content
		}
	}
	for _, m := range out.Transcript {
		for _, c := range m.ToolCalls {
			p.Calls = append(p.Calls, agent.PastCall{Name: c.Name, Arguments: string(c.Arguments), Result: results[c.ID]})
		}
	}
	return p
}

// prefixShares returns the mean share of each request's prompt that is a
// verbatim prefix of the request before it, over the requests after each
// run's first (the second run starts at split), and that share for the
// second run's first request against the first run's last.
func prefixShares(reqs []fake.Request, split int) (within, followUp float64) {
	n := 0
	for i := 1; i < len(reqs); i++ {
		if i == split {
			continue
		}
		within += share(promptText(reqs[i-1]), promptText(reqs[i]))
		n++
	}
	if n > 0 {
		within /= float64(n)
	}
	if split > 0 && split < len(reqs) {
		followUp = share(promptText(reqs[split-1]), promptText(reqs[split]))
	}
	return within, followUp
}

func promptText(r fake.Request) string { return agenttest.PromptText(r) }

func share(prev, cur string) float64 { return agenttest.Share(prev, cur) }

// TestPromptPrefixShares checks the measure on a hand-made log: a run of
// two requests, then a follow-up whose system prompt differs.
func TestPromptPrefixShares(t *testing.T) {
	reqs := []fake.Request{
		{Messages: []llm.Message{{Role: llm.System, Content: "sys"}, {Role: llm.User, Content: "q1"}}},
		{Messages: []llm.Message{{Role: llm.System, Content: "sys"}, {Role: llm.User, Content: "q1"}, {Role: llm.Assistant, Content: "a"}}},
		{Messages: []llm.Message{{Role: llm.System, Content: "other"}, {Role: llm.User, Content: "q2"}}},
	}
	within, followUp := prefixShares(reqs, 2)
	if want := 1 - float64(len("\x00assistant\x00a"))/float64(len(promptText(reqs[1]))); math.Abs(within-want) > 1e-9 {
		t.Errorf("within %.3f, want %.3f", within, want)
	}
	if want := float64(len("system\x00")) / float64(len(promptText(reqs[2]))); math.Abs(followUp-want) > 1e-9 {
		t.Errorf("follow-up %.3f, want %.3f", followUp, want)
	}
}
