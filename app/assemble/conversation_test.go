package assemble

import (
	"slices"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/tools"
)

// A conversation stored before refs ran on across it restarts at q1 with
// each answer: the later answers' refs are renumbered after the highest,
// in their queries, charts, findings and texts, so each finding keeps the
// evidence of the question that produced it.
func TestAnOldConversationsRefsAreRenumbered(t *testing.T) {
	table := &tools.Table{Columns: []tools.Column{{Name: "n", Type: "BIGINT"}}, Rows: 1, Preview: [][]any{{1}}}
	chart := &tools.Chart{Title: "A chart", Spec: []byte(`{"mark":"bar"}`)}
	answer := func(sql, finding string) *agent.Outcome {
		return &agent.Outcome{Status: agent.Done, Summary: "About " + sql + " [q1]",
			Findings: []agent.Finding{{Text: finding + " [q1, c1]", Evidence: []string{"q1", "c1"}}},
			Evidence: []agent.Evidence{{Ref: "q1", SQL: sql, Table: table}, {Ref: "c1", SQL: sql, Chart: chart}}}
	}
	exp := ConversationExploration([]Asked{
		{Turn: 1, Question: "First?", Outcome: answer("SELECT 1", "One")},
		{Turn: 3, Question: "Third?", Outcome: answer("SELECT 3", "Three")},
	}, "")
	var qs, cs []string
	for _, q := range exp.Queries {
		qs = append(qs, q.Ref+" "+q.SQL)
	}
	for _, c := range exp.Charts {
		cs = append(cs, c.Ref+" "+c.SQL)
	}
	if !slices.Equal(qs, []string{"q1 SELECT 1", "q2 SELECT 3"}) || !slices.Equal(cs, []string{"c1 SELECT 1", "c2 SELECT 3"}) {
		t.Fatalf("queries %v charts %v", qs, cs)
	}
	if f := exp.Findings; len(f) != 2 || f[1].Text != "Three [q2, c2]" || !slices.Equal(f[1].Evidence, []string{"q2", "c2"}) ||
		f[0].Text != "One [q1, c1]" {
		t.Errorf("findings %+v", f)
	}
	if exp.Summary != "Question 1 (First?): About SELECT 1 [q1]\n\nQuestion 3 (Third?): About SELECT 3 [q2]" {
		t.Errorf("summary %q", exp.Summary)
	}
	if !slices.Equal(exp.Turns, []int{1, 3}) || exp.Question != "First?" || !slices.Equal(exp.FollowUps, []string{"Third?"}) {
		t.Errorf("turns %v question %q follow-ups %v", exp.Turns, exp.Question, exp.FollowUps)
	}
	if err := exp.Validate(); err != nil {
		t.Error(err)
	}
}
