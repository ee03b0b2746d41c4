package session_test

import (
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
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
