package assemble_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/evidence"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app/eval"
	"github.com/loupeapp/loupe/app/sample"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// Answers held to their evidence (issue 23): each scripted model states
// numbers, some of which no tool result of the run holds (listed in
// unbacked, by construction). Every one of those must reach the user
// marked, none of the others may be, and the model must have been asked
// once to back or withdraw them.
func TestAnswersHeldToEvidence(t *testing.T) {
	failing := fake.Calls(sqlCall(`{"sql":"SELECT count(*) FROM ordrs"}`))
	counted := fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`))
	cases := []struct {
		name       string
		turns      []fake.Turn // before the answer
		answer     string      // the model's answer, repeated when challenged
		after      []fake.Turn // what the model does once challenged (default: repeat the answer)
		unbacked   []string    // numbers of the final answer nothing backs
		challenged bool
	}{
		{name: "a number after the only query failed", turns: []fake.Turn{failing}, answer: "The total is 37.", unbacked: []string{"37"}, challenged: true},
		{name: "a made-up share beside a real count", turns: []fake.Turn{counted}, answer: "There are 40 orders, 62% of them shipped.", unbacked: []string{"62%"}, challenged: true},
		{name: "findings with an invented figure", turns: []fake.Turn{counted},
			answer:   "There are 40 orders.\n\nFindings:\n- 40 orders in all [q1]\n- about 1,250 units sold [q1]",
			unbacked: []string{"1,250"}, challenged: true},
		{name: "challenged, the model queries and answers right", turns: []fake.Turn{failing}, answer: "The total is 37.",
			after: []fake.Turn{counted, text(right)}, challenged: true},
		{name: "challenged, the model withdraws the number", turns: []fake.Turn{failing}, answer: "The total is 37.",
			after: []fake.Turn{text("I could not count the orders: my query failed.")}, challenged: true},
		{name: "backed numbers pass unchanged", turns: []fake.Turn{counted}, answer: "There are 40 orders (40 in the one table, rounded: 40.0)."},
		{name: "numbers the user wrote and a year", turns: []fake.Turn{counted}, answer: "Of the 40 orders, none is from before 2019; you asked about 7."},
	}
	var unmarked, unsupported int
	for _, wire := range wires {
		for _, c := range cases {
			t.Run(wire+"/"+c.name, func(t *testing.T) {
				turns := append(append([]fake.Turn{}, c.turns...), text(c.answer))
				after := c.after
				if after == nil {
					after = []fake.Turn{text(c.answer)}
				}
				turns = append(turns, after...)
				sc := play(t, wire, "How many orders are there? I counted 7.", setup{turns: turns})
				out := sc.out
				if out.Status != agent.Done {
					t.Fatalf("status %s (%s)", out.Status, out.Reason)
				}
				final := turns[len(turns)-1].Content
				want := final
				for _, n := range c.unbacked {
					unsupported++
					if !strings.Contains(out.Answer, n+" "+evidence.Mark) {
						unmarked++
						t.Errorf("%s reached the user unmarked: %q", n, out.Answer)
					}
					want = strings.Replace(want, n, n+" "+evidence.Mark, 1)
				}
				if out.Answer != want {
					t.Errorf("answer %q, want %q", out.Answer, want)
				}
				if out.Meta.Challenged != c.challenged || out.Meta.Unverified != len(c.unbacked) {
					t.Errorf("challenged %v unverified %d, want %v %d", out.Meta.Challenged, out.Meta.Unverified, c.challenged, len(c.unbacked))
				}
				reqs := sc.srv.Requests()
				asked := 0
				for _, m := range reqs[len(reqs)-1].Messages {
					if m.Role == llm.User && strings.Contains(m.Content, "appear in no tool result") {
						asked++
					}
				}
				if (asked == 1) != c.challenged || asked > 1 {
					t.Errorf("the model was asked %d times to back its numbers", asked)
				}
				if c.challenged && len(c.unbacked) > 0 && !strings.Contains(sc.lastUser(t), c.unbacked[0]) {
					t.Errorf("the challenge does not name %s: %q", c.unbacked[0], sc.lastUser(t))
				}
				checked := sc.rec.Of(agent.NumbersChecked)
				if len(out.Numbers) > 0 && len(checked) == 0 {
					t.Errorf("no numbers_checked event for the trace")
				}
			})
		}
	}
	fmt.Printf("evidence: %d of %d unsupported numbers reached the user unmarked\n", unmarked, unsupported)
}

// lastUser is the content of the last user message the model was sent.
func (sc *scenario) lastUser(t *testing.T) string {
	t.Helper()
	reqs := sc.srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.User && strings.Contains(msgs[i].Content, "appear in no tool result") {
			return msgs[i].Content
		}
	}
	return ""
}

// The eval sample answered right, in words a person would write (numbers
// with thousands separators and rounded, lists numbered): no number may be
// marked and no answer challenged.
func TestEvalSampleAnswersUnmarked(t *testing.T) {
	ctx := context.Background()
	ws, err := workspace.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	paths, err := sample.WriteTo(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if _, err := ws.Loader.Load(ctx, p, load.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	qs, err := eval.SampleQuestions()
	if err != nil {
		t.Fatal(err)
	}
	checked, marked := 0, 0
	for _, q := range qs {
		if q.SQL == "" {
			continue
		}
		ans := spokenAnswer(t, ws.Engine.DB(), q.SQL)
		sc := play(t, wires[0], q.Question, setup{ws: ws, turns: []fake.Turn{
			fake.Calls(call("run_sql", map[string]any{"sql": q.SQL})), text(ans),
		}})
		out := sc.out
		checked += len(out.Numbers)
		if out.Meta.Unverified > 0 || out.Meta.Challenged || out.Answer != ans {
			marked += out.Meta.Unverified
			t.Errorf("%s: challenged %v, %d marked:\n%s", q.ID, out.Meta.Challenged, out.Meta.Unverified, out.Answer)
		}
	}
	fmt.Printf("evidence: eval sample, %d numbers checked in right answers, %d falsely marked\n", checked, marked)
	if checked < 20 {
		t.Errorf("only %d numbers checked; the sample answers should state more", checked)
	}
}

// spokenAnswer runs the gold query and words its first rows as an analyst
// would: "1. West: 1,234.57".
func spokenAnswer(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	b.WriteString("Here is what the data shows:\n")
	for n := 1; rows.Next() && n <= 12; n++ {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = spoken(v)
		}
		fmt.Fprintf(&b, "%d. %s\n", n, strings.Join(parts, ": "))
	}
	return strings.TrimSpace(b.String())
}

func spoken(v any) string {
	switch x := v.(type) {
	case int64:
		return grouped(float64(x), 0)
	case int32:
		return grouped(float64(x), 0)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return grouped(x, 0)
		}
		return grouped(x, 2)
	case time.Time:
		return x.Format("2006-01-02")
	case nil:
		return "none"
	}
	return fmt.Sprint(v)
}

// grouped formats x with thousands separators and d decimals.
func grouped(x float64, d int) string {
	s := fmt.Sprintf("%.*f", d, math.Abs(x))
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if x < 0 {
		return "-" + b.String() + frac
	}
	return b.String() + frac
}
