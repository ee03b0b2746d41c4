package session_test

import (
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/data/privacy"
)

// A conversation's follow-ups start with the prompt sent before them:
// over three questions asked through session.Ask (retrieval, the stored
// conversation, its history) each follow-up's first request shares at
// least 0.9 of its prompt, verbatim, with the last request of the
// question before it, and so does each step with the step before, whose
// whole prompt it starts with. The
// model server is told to keep the model loaded (Ollama's keep_alive) or
// which cache the conversation's requests belong to (OpenAI's
// prompt_cache_key, the same for the whole conversation and not the
// conversation's id), on every request.
func TestFollowUpsReuseThePromptSentBefore(t *testing.T) {
	const floor = 0.9
	for _, wire := range []string{provider.Ollama, provider.OpenAI} {
		t.Run(wire, func(t *testing.T) {
			w := newWorldOn(t, wire, fake.Options{Respond: func(r fake.Request) fake.Turn {
				if agenttest.ToolResultsSinceQuestion(r) < 2 {
					return fake.Calls(call(t, "run_sql", map[string]any{"sql": regionSQL}))
				}
				return fake.Text("West has the most orders.\n\nFindings:\n- West leads [q1]")
			}})
			var chat string
			var firsts []int // each question's first request
			for _, q := range []string{"Which region has the most orders?", "And the least?", "How many orders are there per product?"} {
				firsts = append(firsts, len(w.srv.Requests()))
				pair, out, _ := w.askWith(t, chat, q, "")
				if out.Status != agent.Done {
					t.Fatalf("%q: %s %s", q, out.Status, out.Reason)
				}
				chat = pair.User.ConversationID
			}
			reqs := w.srv.Requests()
			if len(reqs) != 9 {
				t.Fatalf("%d requests, want 3 steps for each of 3 questions", len(reqs))
			}
			for i := 1; i < len(reqs); i++ {
				s := agenttest.PrefixShare(reqs[i-1], reqs[i])
				kind := "a step"
				if i == firsts[1] || i == firsts[2] {
					kind = "a follow-up"
				}
				t.Logf("request %d (%s): %.3f of the prompt is the previous one's", i, kind, s)
				if s < floor {
					t.Errorf("request %d (%s): %.3f of its prompt is a verbatim prefix of the one before, want >= %.1f", i, kind, s, floor)
				}
				// All of the previous request is cached: the model server
				// reads only what was added since.
				if prev, cur := agenttest.PromptText(reqs[i-1]), agenttest.PromptText(reqs[i]); !strings.HasPrefix(cur, prev) {
					t.Errorf("request %d (%s) does not start with the whole request before it", i, kind)
				}
			}
			for i, r := range reqs {
				switch wire {
				case provider.Ollama:
					if string(r.KeepAlive) != `"30m0s"` {
						t.Errorf("request %d: keep_alive %s, want \"30m0s\"", i, r.KeepAlive)
					}
				case provider.OpenAI:
					if r.CacheKey == "" || r.CacheKey != reqs[0].CacheKey || strings.Contains(r.CacheKey, chat) {
						t.Errorf("request %d: prompt_cache_key %q, want the conversation's (%q), not its id", i, r.CacheKey, reqs[0].CacheKey)
					}
				}
			}
		})
	}
}

// At the schema privacy level a follow-up's history holds no value of the
// data, whether the earlier answer is replayed as its run sent it (a
// model with room for it) or told in text (a small context window, where
// the run is too big to replay): the answer as the model wrote it, with
// its references, never the stored answer with the values filled in.
func TestSchemaLevelFollowUpsHoldNoValue(t *testing.T) {
	for _, c := range []struct {
		name    string
		context int
		replay  bool
	}{{"replayed", 32768, true}, {"told in text", 2048, false}} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorldOn(t, provider.Ollama, fake.Options{
				Models: []fake.Model{{Name: "qwen3:8b", Tools: true, ContextLength: c.context}},
				Turns: []fake.Turn{
					fake.Calls(call(t, "run_sql", map[string]any{"sql": regionSQL})),
					fake.Text("Most orders come from {{q1.region[0]}}."),
					fake.Text("As said, the top region leads."),
				}})
			pair, out, _ := w.askWith(t, "", "Which region has the most orders?", privacy.Schema)
			if out.Status != agent.Done || !strings.HasPrefix(out.Answer, "Most orders come from ") || strings.Contains(out.Answer, "{{") {
				t.Fatalf("first answer: %s %q", out.Status, out.Answer)
			}
			filled := out.Answer
			if _, out, _ = w.askWith(t, pair.User.ConversationID, "And which is second?", privacy.Schema); out.Status != agent.Done {
				t.Fatalf("follow-up: %s %s", out.Status, out.Reason)
			}
			reqs := w.srv.Requests()
			last := reqs[len(reqs)-1]
			body := string(last.Body)
			if strings.Contains(body, filled) || !strings.Contains(body, "{{q1.region[0]}}") {
				t.Errorf("the follow-up must hold the answer as the model wrote it, not %q", filled)
			}
			replayed := false
			for _, m := range last.Messages {
				replayed = replayed || len(m.ToolCalls) > 0
			}
			if replayed != c.replay {
				t.Errorf("the earlier run replayed as sent: %v, want %v", replayed, c.replay)
			}
		})
	}
}
