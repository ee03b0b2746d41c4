package eval_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/refs"
	"github.com/loupeapp/loupe/app/eval"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/query"
)

// shapeRe reads the reference the schema level's result suggests: "refer
// to one as {{q1.channel[0]}}".
var shapeRe = regexp.MustCompile(`refer to one as (\{\{q\d+\..+?\[0\]\}\})`)

// readingModel answers each sample question the way a model does at any
// level: it runs the gold query (min(order_date) for the answer-only
// question), then states the first value of the result — read from the
// rows when it sees them (open, masked), written as a reference when it
// sees only the shape (schema).
func readingModel(t *testing.T, qs []eval.Question) *fake.Server {
	t.Helper()
	byQuestion := map[string]eval.Question{}
	for _, q := range qs {
		byQuestion[q.Question] = q
	}
	return fake.Start(t, fake.Options{Respond: func(r fake.Request) fake.Turn {
		var question, result string
		for _, m := range r.Messages {
			if m.Role == llm.User && question == "" {
				question = agent.UserWords(m.Content)
			}
			if m.Role == llm.Tool {
				result = m.Content
			}
		}
		if result == "" {
			sql := byQuestion[question].SQL
			if sql == "" {
				sql = "SELECT min(order_date) AS first_order FROM orders"
			}
			return fake.Calls(fake.Call{Name: "run_sql", Args: `{"sql": ` + quote(sql) + `}`})
		}
		if m := shapeRe.FindStringSubmatch(result); m != nil {
			return fake.Text("The answer is " + m[1] + ".")
		}
		// Open and masked: "[q1] N rows × k columns: …", a header, then rows.
		lines := strings.Split(result, "\n")
		if len(lines) < 3 {
			return fake.Text("I could not read the result.")
		}
		first, _, _ := strings.Cut(lines[2], " | ")
		return fake.Text("The answer is " + first + ".")
	}})
}

// The cost of each privacy level on the eval sample. The model is the
// scripted readingModel, not a real one: the accuracy measures whether
// Loupe still delivers correct answers when the model must write
// references instead of values (the query, the filling, the scoring),
// not how well a model copes with seeing no values.
func TestSampleAccuracyByLevel(t *testing.T) {
	qs, err := eval.SampleQuestions()
	if err != nil {
		t.Fatal(err)
	}
	for _, level := range privacy.Levels {
		t.Run(string(level), func(t *testing.T) {
			srv := readingModel(t, qs)
			open := sampleEnv(t, srv, level)
			sum, err := eval.Run(context.Background(), qs, open, nil)
			if err != nil {
				t.Fatal(err)
			}
			env, err := open(context.Background(), "")
			if err != nil {
				t.Fatal(err)
			}
			shown := 0
			for _, r := range sum.Results {
				if !r.Pass {
					t.Errorf("%s: %s %s", r.ID, r.Failure, r.Detail)
				}
				if answerShowsValue(t, env.Query, r) {
					shown++
				} else {
					t.Errorf("%s: the answer does not show the result's value: %q", r.ID, r.Answer)
				}
			}
			t.Logf("privacy level %-6s: accuracy %.0f%% (%d/%d), answers showing the real value %d/%d, %d tokens",
				level, sum.Accuracy*100, sum.Passed, sum.Total, shown, sum.Total, sum.Tokens)
		})
	}
}

// answerShowsValue reports whether r's answer states a value of the first
// column of its final query's result (in any row: an unordered GROUP BY
// may come back in another order when run again), not a reference.
func answerShowsValue(t *testing.T, q *query.Runner, r eval.Result) bool {
	t.Helper()
	if strings.Contains(r.Answer, "{{") || strings.Contains(r.Answer, "[unknown reference") || r.SQL == "" {
		return false
	}
	res, err := q.Run(context.Background(), r.SQL, query.Limits{MaxRows: 1000, MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range res.Rows {
		v := strings.TrimSpace(refs.Format(row[0]))
		if f, ok := row[0].(float64); ok && strings.Contains(r.Answer, fmt.Sprint(f)) {
			return true
		}
		if v != "" && strings.Contains(r.Answer, "The answer is "+v) {
			return true
		}
	}
	return false
}
