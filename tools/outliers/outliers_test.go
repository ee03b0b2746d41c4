package outliers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/outliers"
	"github.com/loupeapp/loupe/tools/sqltool"
	"github.com/loupeapp/loupe/tools/tooltest"
)

// payments is the generated dataset: ids 1–100, amounts 10–105 for the
// first 96 rows, then 2500, 1000 and -400, and one NULL; a text column.
func payments() []*float64 {
	var out []*float64
	for i := 0; i < 96; i++ {
		v := float64(10 + i)
		out = append(out, &v)
	}
	for _, v := range []float64{2500, 1000, -400} {
		out = append(out, &v)
	}
	return append(out, nil)
}

// open loads payments.csv (written here) and the tooltest fixtures into a
// real workspace and returns find_outliers over it, with run_sql's
// executor as the app wires it.
func open(t *testing.T) (*workspace.Workspace, *outliers.Tool, *sqltool.Tool) {
	t.Helper()
	var b strings.Builder
	b.WriteString("id,amount,note\n")
	for i, v := range payments() {
		amount := ""
		if v != nil {
			amount = fmt.Sprint(*v)
		}
		fmt.Fprintf(&b, "%d,%s,n%d\n", i+1, amount, i%7)
	}
	path := filepath.Join(t.TempDir(), "payments.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := tooltest.Workspace(t)
	tooltest.Load(t, ws, path)
	sql := sqltool.New(ws.Query, ws, results.New(results.Config{}), sqltool.Config{})
	return ws, outliers.New(ws, ws.Query, sql), sql
}

// quantile is linear interpolation between order statistics (DuckDB's
// quantile_cont), computed here independently of the tool.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := math.Floor(pos)
	return sorted[int(lo)] + (pos-lo)*(sorted[int(math.Ceil(pos))]-sorted[int(lo)])
}

// expect is the outliers of vals by the rule, counted here.
func expect(vals []*float64, method string, k float64) (below, above int, low, high float64) {
	var xs []float64
	for _, v := range vals {
		if v != nil {
			xs = append(xs, *v)
		}
	}
	sort.Float64s(xs)
	if method == "zscore" {
		mean, ss := 0.0, 0.0
		for _, x := range xs {
			mean += x
		}
		mean /= float64(len(xs))
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		sd := math.Sqrt(ss / float64(len(xs)-1))
		low, high = mean-k*sd, mean+k*sd
	} else {
		q1, q3 := quantile(xs, 0.25), quantile(xs, 0.75)
		low, high = q1-k*(q3-q1), q3+k*(q3-q1)
	}
	for _, x := range xs {
		if x < low {
			below++
		} else if x > high {
			above++
		}
	}
	return below, above, low, high
}

func run(t *testing.T, tool tools.Tool, args any) tools.Result {
	t.Helper()
	res, err := tool.Run(context.Background(), tooltest.Args(t, args))
	if err != nil {
		t.Fatalf("Run(%v): %v", args, err)
	}
	return res
}

func TestFindsOutliers(t *testing.T) {
	_, tool, _ := open(t)
	first50 := payments()[:50]
	cases := []struct {
		name   string
		args   map[string]any
		vals   []*float64
		method string
		k      float64
		top    string // the most extreme row's amount
	}{
		{"iqr over a table", map[string]any{"table": "payments", "column": "amount"}, payments(), "iqr", 1.5, "2500"},
		{"zscore, k as a string", map[string]any{"table": "Payments", "column": "AMOUNT", "method": "zscore", "k": "2"}, payments(), "zscore", 2, "2500"},
		{"wide fences", map[string]any{"table": "payments", "column": "amount", "k": 40}, payments(), "iqr", 40, "2500"},
		{"over a SELECT", map[string]any{"sql": "SELECT * FROM payments WHERE id <= 50;", "column": "amount"}, first50, "iqr", 1.5, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, tool, c.args)
			if res.Failed {
				t.Fatalf("failed: %s", res.ForModel)
			}
			below, above, low, high := expect(c.vals, c.method, c.k)
			n := below + above
			head := fmt.Sprintf("Below: %d. Above: %d.", below, above)
			if !strings.Contains(res.ForModel, head) || !strings.Contains(res.ForModel, fmt.Sprintf("below %g or above %g", round6(low), round6(high))) {
				t.Errorf("want %q and bounds %g, %g in:\n%s", head, low, high, res.ForModel)
			}
			d := res.Display
			if d.Kind != tools.KindTable || d.Table == nil || d.Table.Rows != int64(n) || d.Table.Ref == "" || !strings.Contains(d.SQL, "ORDER BY abs(") {
				t.Fatalf("display = %+v (want a table of %d rows)", d, n)
			}
			if c.top != "" && fmt.Sprint(d.Table.Preview[0][1]) != c.top {
				t.Errorf("most extreme first: got %v, want %s", d.Table.Preview[0], c.top)
			}
			if n == 0 && !strings.Contains(res.ForModel, "no outliers") {
				t.Errorf("an empty result must say so:\n%s", res.ForModel)
			}
			if want := fmt.Sprintf("%d outliers of %d (%s)", n, nonNull(c.vals), c.method); res.Summary != want {
				t.Errorf("summary %q, want %q", res.Summary, want)
			}
		})
	}
}

func round6(f float64) float64 {
	var g float64
	fmt.Sscanf(fmt.Sprintf("%.6g", f), "%g", &g)
	return g
}

func nonNull(vs []*float64) int {
	n := 0
	for _, v := range vs {
		if v != nil {
			n++
		}
	}
	return n
}

// What the model must fix comes back as a failed result that says how.
func TestFailuresSayWhatToFix(t *testing.T) {
	_, tool, _ := open(t)
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"unknown table", map[string]any{"table": "paymnts", "column": "amount"}, "no dataset \"paymnts\""},
		{"unknown column", map[string]any{"table": "payments", "column": "amt"}, "Its columns: id, amount, note"},
		{"text column", map[string]any{"table": "payments", "column": "note"}, "not a number"},
		{"no source", map[string]any{"column": "amount"}, "Name the dataset"},
		{"two sources", map[string]any{"table": "payments", "sql": "SELECT 1", "column": "amount"}, "not both"},
		{"bad method", map[string]any{"table": "payments", "column": "amount", "method": "mad"}, "Unknown method"},
		{"bad k", map[string]any{"table": "payments", "column": "amount", "k": -1}, "positive number"},
		{"no column", map[string]any{"table": "payments"}, "column"},
		{"a write does not run", map[string]any{"sql": "DELETE FROM payments", "column": "amount"}, "syntax error"},
		{"the guard refuses a file outside the workspace", map[string]any{"sql": "SELECT 1 AS amount FROM read_csv_auto('/etc/passwd')", "column": "amount"}, "refused"},
		{"bad column in the SELECT", map[string]any{"sql": "SELECT id FROM payments", "column": "amount"}, "amount"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, tool, c.args)
			if !res.Failed || res.Display.Kind != tools.KindError || !strings.Contains(res.ForModel, c.want) {
				t.Errorf("want a failure saying %q, got failed=%v:\n%s", c.want, res.Failed, res.ForModel)
			}
		})
	}
	res := run(t, tool, map[string]any{"sql": "SELECT 1 AS x UNION ALL SELECT 2", "column": "x"})
	if res.Failed || res.Display.Kind != tools.KindText || !strings.Contains(res.ForModel, "too few") {
		t.Errorf("two values: %+v", res)
	}
}

func TestHonoursContext(t *testing.T) {
	_, tool, _ := open(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tool.Run(ctx, json.RawMessage(`{"table": "payments", "column": "amount"}`))
	if err == nil || ctx.Err() == nil {
		t.Fatalf("a cancelled run returned %v", err)
	}
}

// The model, scripted on both wires through the real providers, calls the
// tool under a name of its own, reads the counts and cites the result.
func TestModelCallsAndCitesIt(t *testing.T) {
	for _, wire := range []string{provider.Ollama, provider.OpenAI} {
		t.Run(wire, func(t *testing.T) {
			_, tool, sql := open(t)
			below, above, _, _ := expect(payments(), "iqr", 1.5)
			answer := fmt.Sprintf("%d payments are outliers: %d above the upper fence and %d below the lower one; the largest is 2500.\n\n"+
				"Findings:\n- %d of %d amounts are outliers [q1]\n", below+above, above, below, below+above, nonNull(payments()))
			srv := fake.New(t,
				fake.Calls(fake.Call{Name: "detect_outliers", Args: `{"table": "payments", "column": "amount", "purpose": "unusual payments"}`}),
				fake.Text(answer))
			cfg := provider.Config{Provider: wire, Model: "qwen3:8b", APIKey: "sk-test", BaseURL: srv.OllamaURL()}
			if wire == provider.OpenAI {
				cfg.BaseURL = srv.OpenAIURL()
			}
			p, err := provider.Open(cfg)
			if err != nil {
				t.Fatal(err)
			}
			set, err := tools.NewSet(sql, tool)
			if err != nil {
				t.Fatal(err)
			}
			a, err := agent.New(agent.Config{Provider: p, Model: cfg.Model, Tools: set})
			if err != nil {
				t.Fatal(err)
			}
			var events []agent.Event
			out := a.Run(context.Background(), agent.Input{RunID: "run_1", Question: "Any unusual payments?",
				Schema: agent.Schema{Tables: []agent.Table{{Name: "payments", Rows: 100}}}}, agent.SinkFunc(func(e agent.Event) { events = append(events, e) }))
			if out.Status != agent.Done {
				t.Fatalf("status %s: %s", out.Status, out.Reason)
			}
			if len(out.Findings) != 1 || fmt.Sprint(out.Findings[0].Evidence) != "[q1]" {
				t.Errorf("findings %+v", out.Findings)
			}
			if len(out.Evidence) != 1 || out.Evidence[0].Ref != "q1" || out.Evidence[0].Tool != outliers.Name ||
				out.Evidence[0].Table == nil || out.Evidence[0].Table.Rows != int64(below+above) {
				t.Errorf("evidence %+v", out.Evidence)
			}
			// The model read the counts under the ref it cites.
			reqs := srv.Requests()
			res := reqs[len(reqs)-1].ToolResults()
			if len(res) != 1 || !strings.HasPrefix(res[0].Content, "[q1] ") || !strings.Contains(res[0].Content, fmt.Sprintf("Below: %d. Above: %d.", below, above)) ||
				!strings.Contains(res[0].Content, "There is no tool \"detect_outliers\"; Loupe ran find_outliers") {
				t.Errorf("tool result the model read:\n%+v", res)
			}
			// The trace shows the call the way the tool's Spec says.
			for _, e := range events {
				if e.Type == agent.ToolCalled && (e.Call.View == nil || e.Call.View.Icon != "warning" || !strings.Contains(e.Call.View.Did, "outliers")) {
					t.Errorf("call event view %+v", e.Call.View)
				}
			}
			if n := strings.Count(fmt.Sprint(out.Meta.ToolTimes), "find_outliers") + strings.Count(fmt.Sprint(out.Meta.ToolTimes), "detect_outliers"); n != 1 {
				t.Errorf("tool times %+v", out.Meta.ToolTimes)
			}
		})
	}
}
