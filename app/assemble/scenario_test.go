package assemble_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools/tooltest"
)

// The scenarios drive the real agent, tools and DuckDB through the real
// provider adapters against the fake model server, on both wire formats.
// They are the integration copies of the loop's scenarios (agent/
// loop_test.go, over agenttest's stub tools): the ones whose assertions
// need the real tools — the real columns and results, sqltool's hint for
// an unknown column and its wording of an empty result, a chart's injected
// data, a DuckDB query interrupted when the run is cancelled.

var wires = []string{provider.Ollama, provider.OpenAI}

type scenario struct {
	ws       *workspace.Workspace
	srv      *fake.Server
	rec      *agenttest.Recorder
	out      *agent.Outcome
	question string
}

type setup struct {
	ws      *workspace.Workspace
	turns   []fake.Turn
	respond func(fake.Request) fake.Turn
	opts    assemble.Options
	ctx     context.Context
}

// play runs question against the scripted model on wire.
func play(t *testing.T, wire, question string, s setup) *scenario {
	t.Helper()
	if s.ws == nil {
		s.ws = tooltest.Workspace(t)
	}
	if s.ctx == nil {
		s.ctx = context.Background()
	}
	srv := fake.Start(t, fake.Options{Turns: s.turns, Respond: s.respond})
	cfg := provider.Config{Provider: wire, Model: "qwen3:8b", APIKey: "sk-test"}
	cfg.BaseURL = srv.OllamaURL()
	if wire == provider.OpenAI {
		cfg.BaseURL = srv.OpenAIURL()
	}
	p, err := provider.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, err := assemble.Agent(s.ws, results.New(results.Config{}), p, cfg.Model, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := assemble.WorkspaceSchema(s.ctx, s.ws)
	if err != nil {
		t.Fatal(err)
	}
	rec := &agenttest.Recorder{}
	out := a.Run(s.ctx, agent.Input{RunID: "run_test", Question: question, Schema: sch}, rec)
	sc := &scenario{ws: s.ws, srv: srv, rec: rec, out: out, question: question}
	sc.checkInvariants(t)
	return sc
}

// checkInvariants holds for every run: one run_started first, one
// run_finished last carrying the outcome, and a transcript in which every
// tool call has exactly one result.
func (sc *scenario) checkInvariants(t *testing.T) {
	t.Helper()
	ev := sc.rec.Events()
	if len(ev) < 2 || ev[0].Type != agent.RunStarted || ev[len(ev)-1].Type != agent.RunFinished {
		t.Fatalf("events must start with run_started and end with run_finished; got %d events", len(ev))
	}
	if n := len(sc.rec.Of(agent.RunFinished)); n != 1 {
		t.Errorf("%d run_finished events, want exactly 1", n)
	}
	if ev[len(ev)-1].Finished.Status != sc.out.Status {
		t.Errorf("run_finished status %s, outcome %s", ev[len(ev)-1].Finished.Status, sc.out.Status)
	}
	open := map[string]bool{}
	for _, m := range sc.out.Transcript {
		for _, c := range m.ToolCalls {
			if open[c.ID] {
				t.Errorf("tool call id %s used twice", c.ID)
			}
			open[c.ID] = true
		}
		if m.Role == llm.Tool {
			if !open[m.ToolCallID] {
				t.Errorf("tool result for unknown or answered call %s", m.ToolCallID)
			}
			delete(open, m.ToolCallID)
		}
	}
	if len(open) > 0 {
		t.Errorf("tool calls without a result in the transcript: %v", open)
	}
	if len(sc.out.Transcript) == 0 || sc.out.Transcript[0].Role != llm.User || agent.UserWords(sc.out.Transcript[0].Content) != sc.question {
		t.Errorf("transcript must start with the user's question")
	}
}

// lastTool returns the last tool result the model was shown in request n.
func (sc *scenario) lastTool(t *testing.T, n int) string {
	t.Helper()
	reqs := sc.srv.Requests()
	if n >= len(reqs) {
		t.Fatalf("only %d requests, want request %d", len(reqs), n)
	}
	res := reqs[n].ToolResults()
	if len(res) == 0 {
		t.Fatalf("request %d holds no tool result", n)
	}
	return res[len(res)-1].Content
}

var call = agenttest.Call

// The fault suite's count and call, for the evidence tests.
const (
	countSQL = agenttest.CountSQL
	right    = agenttest.Right
)

var sqlCall = agenttest.SQLCall

func text(s string) fake.Turn { return fake.Text(s) }

// scalar runs a query on the workspace and returns its one value as text.
func scalar(t *testing.T, ws *workspace.Workspace, q string) string {
	t.Helper()
	var s string
	if err := ws.Engine.DB().QueryRow(q).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s
}

func TestHappyPathTwoSteps(t *testing.T) {
	const q = `SELECT region, round(sum(quantity * unit_price), 2) AS revenue FROM orders GROUP BY region ORDER BY revenue DESC`
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			sc := play(t, wire, "Which region has the highest revenue?", setup{turns: []fake.Turn{
				fake.Calls(call("describe_table", map[string]any{"table": "orders"})),
				fake.Calls(call("run_sql", map[string]any{"sql": q, "purpose": "revenue by region"})),
				{Content: "West leads revenue.\n\nFindings:\n- West has the highest revenue [q1]\n", Chunks: 4},
			}})
			out := sc.out
			if out.Status != agent.Done || out.Meta.Steps != 3 || out.Meta.ToolCalls != 2 {
				t.Fatalf("status %s after %d steps and %d calls (%s)", out.Status, out.Meta.Steps, out.Meta.ToolCalls, out.Reason)
			}
			// The model was shown the table's real columns, then the real result.
			if d := sc.lastTool(t, 1); !strings.Contains(d, "unit_price") || !strings.Contains(d, "region") {
				t.Errorf("describe_table result lacks the columns:\n%s", d)
			}
			top := scalar(t, sc.ws, `SELECT region FROM (`+q+`) LIMIT 1`)
			res := sc.lastTool(t, 2)
			if !strings.HasPrefix(res, "[q1] ") || !strings.Contains(res, top) {
				t.Errorf("run_sql result should be labelled [q1] and show %s:\n%s", top, res)
			}
			if out.Summary != "West leads revenue." || len(out.Findings) != 1 || fmt.Sprint(out.Findings[0].Evidence) != "[q1]" {
				t.Errorf("summary %q findings %+v", out.Summary, out.Findings)
			}
			if len(out.Evidence) != 1 || out.Evidence[0].SQL != q || out.Evidence[0].Table == nil || out.Evidence[0].Table.Ref == "" {
				t.Errorf("evidence = %+v", out.Evidence)
			}
			// The answer streamed as deltas that add up to it.
			var text strings.Builder
			for _, e := range sc.rec.Of(agent.TextDelta) {
				text.WriteString(e.Text)
			}
			if !strings.Contains(text.String(), "West leads revenue.") || len(sc.rec.Of(agent.TextDelta)) < 2 {
				t.Errorf("streamed text %q in %d deltas", text.String(), len(sc.rec.Of(agent.TextDelta)))
			}
			// The question's user turn described the data compactly.
			if p := agenttest.Prompt(sc.srv.Requests()[0]); !strings.Contains(p, "Table orders — 40 rows") || !strings.Contains(p, "Table customers — 10 rows") {
				t.Errorf("prompt:\n%s", p)
			}
			if out.Meta.PromptTokens == 0 || len(out.Meta.StepTimes) != 3 || len(out.Meta.ToolTimes) != 2 {
				t.Errorf("meta = %+v", out.Meta)
			}
		})
	}
}

func TestSelfCorrectionAfterUnknownColumn(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			sc := play(t, wire, "Orders per region?", setup{turns: []fake.Turn{
				fake.Calls(call("run_sql", map[string]any{"sql": "SELECT regoin, count(*) FROM orders GROUP BY 1"})),
				fake.Calls(call("run_sql", map[string]any{"sql": "SELECT region, count(*) AS n FROM orders GROUP BY 1 ORDER BY 1"})),
				fake.Text("Orders are spread over four regions.\n\nFindings:\n- Counts per region [q1]"),
			}})
			if sc.out.Status != agent.Done || sc.out.Meta.FailedCalls != 1 {
				t.Fatalf("status %s, failed calls %d", sc.out.Status, sc.out.Meta.FailedCalls)
			}
			hint := sc.lastTool(t, 1)
			if !strings.Contains(hint, `"regoin"`) || !strings.Contains(hint, "region") || strings.HasPrefix(hint, "[q") {
				t.Errorf("the failed query's result should name the bad column and suggest region, without an evidence ref:\n%s", hint)
			}
			fails := 0
			for _, e := range sc.rec.Of(agent.ToolResult) {
				if e.Result.Failed {
					fails++
				}
			}
			if fails != 1 || len(sc.out.Evidence) != 1 || sc.out.Evidence[0].Ref != "q1" {
				t.Errorf("%d failed results, evidence %+v", fails, sc.out.Evidence)
			}
		})
	}
}

func TestEmptyResultReportedHonestly(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			sc := play(t, wire, "How many orders came from Atlantis?", setup{turns: []fake.Turn{
				fake.Calls(call("run_sql", map[string]any{"sql": "SELECT * FROM orders WHERE region = 'Atlantis'"})),
				fake.Text("There are no orders from Atlantis: the query returned no rows.\n\nFindings:\n- No orders from Atlantis [q1]"),
			}})
			res := sc.lastTool(t, 1)
			if !strings.Contains(res, "returned 0 rows") {
				t.Errorf("the model must be told plainly that the result is empty:\n%s", res)
			}
			if sc.out.Status != agent.Done || sc.out.Meta.FailedCalls != 0 || sc.out.Evidence[0].Table.Rows != 0 {
				t.Errorf("status %s, failed %d, evidence %+v", sc.out.Status, sc.out.Meta.FailedCalls, sc.out.Evidence)
			}
		})
	}
}

func TestChartWithInjectedData(t *testing.T) {
	const q = "SELECT region, count(*) AS orders FROM orders GROUP BY region ORDER BY region"
	spec := map[string]any{
		"mark": "bar",
		"encoding": map[string]any{
			"x": map[string]any{"field": "region", "type": "nominal"},
			"y": map[string]any{"field": "orders", "type": "quantitative"},
		},
	}
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			sc := play(t, wire, "Chart orders by region", setup{turns: []fake.Turn{
				fake.Calls(call("create_chart", map[string]any{"title": "Orders by region", "sql": q, "spec": spec})),
				fake.Text("Here is the chart.\n\nFindings:\n- Orders by region [c1]"),
			}})
			charts := sc.rec.Of(agent.ChartMade)
			if len(charts) != 1 || charts[0].Chart.Ref != "c1" {
				t.Fatalf("want one chart event c1, got %+v", charts)
			}
			var got struct {
				Data struct{ Values []map[string]any } `json:"data"`
			}
			if err := json.Unmarshal(charts[0].Chart.Chart.Spec, &got); err != nil {
				t.Fatal(err)
			}
			want := scalar(t, sc.ws, "SELECT count(DISTINCT region) FROM orders")
			if fmt.Sprint(len(got.Data.Values)) != want || got.Data.Values[0]["region"] == nil {
				t.Errorf("injected %d rows (%v), want %s", len(got.Data.Values), got.Data.Values, want)
			}
			if fmt.Sprint(sc.out.Findings[0].Evidence) != "[c1]" {
				t.Errorf("findings %+v", sc.out.Findings)
			}
		})
	}
}

func TestCancelMidTool(t *testing.T) {
	slow := call("run_sql", map[string]any{"sql": "SELECT count(*) FROM range(2000000000) a, range(1000) b WHERE a.range % 7 = b.range"})
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var canceledAt time.Time
			var once sync.Once
			sc := play(t, wire, "Something slow", setup{ctx: ctx, respond: func(r fake.Request) fake.Turn {
				if r.N == 0 {
					go func() {
						time.Sleep(300 * time.Millisecond)
						once.Do(func() { canceledAt = time.Now() })
						cancel()
					}()
					return fake.Calls(slow, call("run_sql", map[string]any{"sql": "SELECT 1"}))
				}
				return fake.Text("unreachable")
			}})
			took := time.Since(canceledAt)
			if sc.out.Status != agent.Canceled {
				t.Fatalf("status %s (%s)", sc.out.Status, sc.out.Reason)
			}
			if took > time.Second {
				t.Errorf("cancel took %s to stop the run, want < 1 s", took)
			}
			skipped := 0
			for _, e := range sc.rec.Of(agent.ToolResult) {
				if e.Result.Skipped {
					skipped++
				}
			}
			if skipped != 2 {
				t.Errorf("both calls should be answered as not run, %d were", skipped)
			}
		})
	}
}
