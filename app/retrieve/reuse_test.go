package retrieve_test

import (
	"context"
	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/app/retrieve"
	"regexp"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/memory"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/search"
	"github.com/loupeapp/loupe/tools/tooltest"
)

var reYear = regexp.MustCompile(`\b20\d\d\b`)

// analyst is the scripted model of the reuse conversation: it asks
// find_prior_query first; given an earlier query it adapts it (the year
// of the question in place of the old one), else it writes the query it
// knows for the question; after a query it answers.
func analyst(fresh map[string]string) func(fake.Request) fake.Turn {
	return func(r fake.Request) fake.Turn {
		question := agenttest.Asked(r)
		last := r.Last()
		switch {
		case last.Role == llm.User:
			return fake.Calls(agenttest.Call("find_prior_query", map[string]string{"question": question}))
		case last.Role == llm.Tool && last.Name == "find_prior_query":
			sql := fresh[question]
			if i := strings.Index(last.Content, "SQL: "); i >= 0 {
				prior := strings.TrimSpace(strings.SplitN(last.Content[i+5:], "\n", 2)[0])
				sql = reYear.ReplaceAllString(prior, reYear.FindString(question))
			}
			return fake.Calls(agenttest.Call("run_sql", map[string]string{"sql": sql, "purpose": "answer"}))
		default:
			return fake.Text("Here it is.\n\nFindings:\n- The counts [q1]")
		}
	}
}

// TestQueryReuseConversation plays a scripted conversation through the
// real agent, tools, query memory and DuckDB: follow-ups that differ from
// an earlier question by one filter must get the earlier query from
// find_prior_query and run it adapted; new topics must find nothing.
func TestQueryReuseConversation(t *testing.T) {
	ctx := context.Background()
	ws := tooltest.Workspace(t)
	mem, err := memory.Open(ws.Engine.Dir())
	if err != nil {
		t.Fatal(err)
	}
	idx, err := index.Open(ws.Engine.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	fresh := map[string]string{
		"How many orders per status in 2024?":               "SELECT status, count(*) AS n FROM orders WHERE year(order_date) = 2024 GROUP BY status ORDER BY status",
		"How many customers signed up per segment in 2022?": "SELECT segment, count(*) AS n FROM customers WHERE year(signup_date) = 2022 GROUP BY segment ORDER BY segment",
	}
	conversation := []struct {
		question string
		followUp bool
	}{
		{"How many orders per status in 2024?", false},
		{"How many orders per status in 2023?", true},
		{"How many customers signed up per segment in 2022?", false},
		{"How many customers signed up per segment in 2023?", true},
	}
	srv := fake.Start(t, fake.Options{Respond: analyst(fresh)})
	p := qwenAt(t, srv)
	std, err := assemble.Tools(ws, results.New(results.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	var all []tools.Tool
	for _, n := range std.Names() {
		tl, _ := std.Get(n)
		all = append(all, tl)
	}
	set, err := tools.NewSet(append(all, search.NewPrior(mem, ws), search.NewSchema(ws, idx))...)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{Provider: p, Model: "qwen3:8b", Tools: set, MaxSteps: 6})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := ws.Datasets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	known := make([]string, len(ds))
	for i, d := range ds {
		known[i] = d.Name
	}
	followUps, reused, newTopics, clean := 0, 0, 0, 0
	var previous string
	for i, turn := range conversation {
		sch, _, err := retrieve.Retrieve(ctx, ws, idx, turn.question, retrieve.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		out := a.Run(tools.WithChat(ctx, "chat1"), agent.Input{RunID: "run_" + string(rune('a'+i)), ChatID: "chat1", Question: turn.question, Schema: sch}, &agenttest.Recorder{})
		if out.Status != agent.Done || len(out.Evidence) != 1 {
			t.Fatalf("%q: %s %s, evidence %v", turn.question, out.Status, out.Reason, out.Evidence)
		}
		ran := out.Evidence[0].SQL
		if turn.followUp {
			followUps++
			if want := reYear.ReplaceAllString(previous, reYear.FindString(turn.question)); ran == want && ran != fresh[turn.question] {
				reused++
			} else {
				t.Errorf("%q ran %q, not the earlier query adapted", turn.question, ran)
			}
		} else {
			newTopics++
			if ran == fresh[turn.question] {
				clean++
			} else {
				t.Errorf("%q (a new topic) ran %q", turn.question, ran)
			}
		}
		if _, err := retrieve.Remember(ctx, mem, "chat1", turn.question, out, known); err != nil {
			t.Fatal(err)
		}
		previous = ran
	}
	t.Logf("query reuse: %d of %d follow-ups adapted the earlier query; %d of %d new topics started fresh", reused, followUps, clean, newTopics)
}
