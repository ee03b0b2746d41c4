package agent_test

import (
	"context"
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
)

// The loop's scenarios drive the real agent through the real provider
// adapters against the scripted fake model server, on both wire formats,
// with the stub tool set of agenttest (tables in memory, no database).
// app/assemble runs the same scenarios over the real tools and DuckDB.

var wires = []string{provider.Ollama, provider.OpenAI}

type scenario struct {
	srv      *fake.Server
	rec      *agenttest.Recorder
	out      *agent.Outcome
	question string
}

type setup struct {
	db       *agenttest.DB
	turns    []fake.Turn
	respond  func(fake.Request) fake.Turn
	models   []fake.Model
	model    string
	maxSteps int
	timeout  time.Duration
	context  int // the model's context window, tokens
	ctx      context.Context
	retry    *llm.RetryPolicy
}

func shop(t *testing.T) *agenttest.DB {
	t.Helper()
	db, err := agenttest.Shop()
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// play runs question against the scripted model on wire.
func play(t *testing.T, wire, question string, s setup) *scenario {
	t.Helper()
	if s.db == nil {
		s.db = shop(t)
	}
	if s.ctx == nil {
		s.ctx = context.Background()
	}
	if s.model == "" {
		s.model = "qwen3:8b"
	}
	srv := fake.Start(t, fake.Options{Turns: s.turns, Respond: s.respond, Models: s.models})
	cfg := provider.Config{Provider: wire, Model: s.model, APIKey: "sk-test", BaseURL: srv.OllamaURL()}
	if wire == provider.OpenAI {
		cfg.BaseURL = srv.OpenAIURL()
	}
	if s.retry != nil {
		cfg.Retry = *s.retry
	}
	p, err := provider.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	set, err := s.db.Tools()
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{Provider: p, Model: s.model, Tools: set,
		MaxSteps: s.maxSteps, Timeout: s.timeout, ContextTokens: s.context})
	if err != nil {
		t.Fatal(err)
	}
	rec := &agenttest.Recorder{}
	out := a.Run(s.ctx, agent.Input{RunID: "run_test", Question: question, Schema: s.db.Schema()}, rec)
	sc := &scenario{srv: srv, rec: rec, out: out, question: question}
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

func TestHappyPathTwoSteps(t *testing.T) {
	const q = `SELECT region, count(*) AS orders FROM orders GROUP BY 1 ORDER BY 1`
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			sc := play(t, wire, "How many orders per region?", setup{turns: []fake.Turn{
				fake.Calls(call("describe_table", map[string]any{"table": "orders"})),
				fake.Calls(call("run_sql", map[string]any{"sql": q, "purpose": "orders by region"})),
				{Content: "Orders are spread over the regions.\n\nFindings:\n- Orders per region [q1]\n", Chunks: 4},
			}})
			out := sc.out
			if out.Status != agent.Done || out.Meta.Steps != 3 || out.Meta.ToolCalls != 2 {
				t.Fatalf("status %s after %d steps and %d calls (%s)", out.Status, out.Meta.Steps, out.Meta.ToolCalls, out.Reason)
			}
			// The model was shown the tool's real results, the query's
			// labelled with its evidence reference.
			if d := sc.lastTool(t, 1); !strings.Contains(d, "unit_price") || !strings.Contains(d, "region") {
				t.Errorf("describe_table result lacks the columns:\n%s", d)
			}
			if res := sc.lastTool(t, 2); !strings.HasPrefix(res, "[q1] ") || !strings.Contains(res, "West") {
				t.Errorf("run_sql result should be labelled [q1] and show the regions:\n%s", res)
			}
			if out.Summary != "Orders are spread over the regions." || len(out.Findings) != 1 || fmt.Sprint(out.Findings[0].Evidence) != "[q1]" {
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
			if !strings.Contains(text.String(), "Orders are spread over the regions.") || len(sc.rec.Of(agent.TextDelta)) < 2 {
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
			// The tool's failure reached the model as it was written,
			// without an evidence reference.
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

func TestRepeatedFailuresAskForANewApproach(t *testing.T) {
	bad := call("run_sql", map[string]any{"sql": "SELECT nope FROM orders"})
	sc := play(t, provider.Ollama, "How many orders?", setup{turns: []fake.Turn{
		fake.Calls(bad), fake.Calls(bad), fake.Calls(bad),
		fake.Text("I could not count the orders."),
	}})
	if got := sc.lastTool(t, 2); strings.Contains(got, "in a row") {
		t.Errorf("second failure should not nudge yet:\n%s", got)
	}
	if got := sc.lastTool(t, 3); !strings.Contains(got, "3 failed calls in a row") || !strings.Contains(got, "(describe_table)") {
		t.Errorf("third failure should tell the model to change approach, naming the tool that describes tables:\n%s", got)
	}
}

func TestClarificationEndsTheTurn(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			sc := play(t, wire, "what's the status?", setup{turns: []fake.Turn{
				fake.Calls(call("ask_user", map[string]any{
					"question": "Status of what — orders or customers' segments?",
					"options":  []string{"order status (pending, shipped, …)", "customer segment"},
				}), call("run_sql", map[string]any{"sql": "SELECT 1"})),
			}})
			out := sc.out
			if out.Status != agent.NeedsInput || out.Question == nil || len(out.Question.Options) != 2 {
				t.Fatalf("status %s, question %+v", out.Status, out.Question)
			}
			if len(sc.srv.Requests()) != 1 {
				t.Errorf("the run should end at the question; the model was called %d times", len(sc.srv.Requests()))
			}
			if len(sc.rec.Of(agent.QuestionAsked)) != 1 {
				t.Errorf("want one question event")
			}
			// The call after ask_user was not run, and says so.
			last := sc.out.Transcript[len(sc.out.Transcript)-1]
			if last.Role != llm.Tool || !strings.Contains(last.Content, "not run") {
				t.Errorf("the call after the question should be answered as not run: %+v", last)
			}
		})
	}
}

func TestNoJoinPathIsOffered(t *testing.T) {
	sc := play(t, provider.OpenAI, "Which customers ordered Widgets?", setup{turns: []fake.Turn{
		fake.Text("The data does not link orders to customers by a known path, so I cannot say which customers ordered Widgets."),
	}})
	sys := agenttest.Prompt(sc.srv.Requests()[0])
	for _, want := range []string{"No join paths are known", "Do not join tables", "say that the data does not link them"} {
		if !strings.Contains(sys, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if sc.out.Status != agent.Done {
		t.Errorf("status %s", sc.out.Status)
	}
}

func TestStepLimitHolds(t *testing.T) {
	loop := fake.Calls(call("run_sql", map[string]any{"sql": "SELECT count(*) FROM orders"}))
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			sc := play(t, wire, "Keep going", setup{
				respond:  func(fake.Request) fake.Turn { return loop },
				maxSteps: 3,
			})
			reqs := sc.srv.Requests()
			if sc.out.Status != agent.Limit || len(reqs) != 3 || sc.out.Meta.Steps != 3 {
				t.Fatalf("status %s after %d requests", sc.out.Status, len(reqs))
			}
			if last := reqs[2].Last(); !strings.Contains(last.Content, "last step") {
				t.Errorf("the last request should tell the model to answer now; last message %+v", last)
			}
			if !strings.Contains(sc.out.Reason, "3 steps") {
				t.Errorf("reason %q", sc.out.Reason)
			}
		})
	}
}

func TestAnswerAtTheLastStep(t *testing.T) {
	sc := play(t, provider.Ollama, "Count orders", setup{
		turns: []fake.Turn{
			fake.Calls(call("run_sql", map[string]any{"sql": "SELECT count(*) AS n FROM orders"})),
			fake.Text("There are 40 orders.\n\nFindings:\n- 40 orders [q1]"),
		},
		maxSteps: 2,
	})
	if sc.out.Status != agent.Done || sc.out.Meta.Steps != 2 {
		t.Errorf("status %s after %d steps", sc.out.Status, sc.out.Meta.Steps)
	}
}

func TestCancelMidTool(t *testing.T) {
	const slowSQL = "SELECT count(*) FROM orders, customers"
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			db := shop(t)
			db.Slow[slowSQL] = true // runs until the run's context ends
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var canceledAt time.Time
			var once sync.Once
			sc := play(t, wire, "Something slow", setup{db: db, ctx: ctx, respond: func(r fake.Request) fake.Turn {
				if r.N == 0 {
					go func() {
						time.Sleep(300 * time.Millisecond)
						once.Do(func() { canceledAt = time.Now() })
						cancel()
					}()
					return fake.Calls(call("run_sql", map[string]any{"sql": slowSQL}), call("run_sql", map[string]any{"sql": "SELECT 1"}))
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

func TestProviderFailures(t *testing.T) {
	fast := &llm.RetryPolicy{Retries: 2, Base: 10 * time.Millisecond, Max: 50 * time.Millisecond}
	answer := fake.Text("Done.")
	cases := []struct {
		name    string
		turns   []fake.Turn
		status  agent.Status
		reason  string
		resets  int
		timeout time.Duration
	}{
		{"500 then recovery", []fake.Turn{fake.Failing(fake.Status(500, "boom")), answer}, agent.Done, "", 0, 0},
		{"500 until retries run out", []fake.Turn{fake.Failing(fake.Status(500, "boom")), fake.Failing(fake.Status(500, "boom")), fake.Failing(fake.Status(500, "boom"))}, agent.Failed, "500", 0, 0},
		{"stream cut mid-way", []fake.Turn{{Content: "Half an answer that breaks off", Chunks: 6, Fail: fake.CutAfter(2)}, answer}, agent.Done, "", 1, 0},
		{"server hangs past the time limit", []fake.Turn{fake.Failing(fake.HangAfter(0))}, agent.Limit, "time limit", 0, 400 * time.Millisecond},
	}
	for _, wire := range wires {
		for _, c := range cases {
			t.Run(wire+"/"+c.name, func(t *testing.T) {
				start := time.Now()
				sc := play(t, wire, "Anything", setup{turns: c.turns, retry: fast, timeout: c.timeout})
				if sc.out.Status != c.status || !strings.Contains(sc.out.Reason, c.reason) {
					t.Errorf("status %s reason %q, want %s with %q", sc.out.Status, sc.out.Reason, c.status, c.reason)
				}
				if n := len(sc.rec.Of(agent.TextReset)); n != c.resets {
					t.Errorf("%d text resets, want %d", n, c.resets)
				}
				if c.timeout > 0 && time.Since(start) > c.timeout+time.Second {
					t.Errorf("took %s with a %s limit", time.Since(start), c.timeout)
				}
			})
		}
	}
}

func TestAnswerWithoutTools(t *testing.T) {
	for _, wire := range wires {
		t.Run(wire, func(t *testing.T) {
			sc := play(t, wire, "Hello, what can you do?", setup{turns: []fake.Turn{
				{Content: "I can explore the orders and customers tables for you.", Thinking: "The user greets me.", Chunks: 3},
			}})
			if sc.out.Status != agent.Done || sc.out.Meta.Steps != 1 || sc.out.Meta.ToolCalls != 0 {
				t.Fatalf("status %s, %d steps", sc.out.Status, sc.out.Meta.Steps)
			}
			if strings.Contains(sc.out.Answer, "greets") || sc.out.Summary != "I can explore the orders and customers tables for you." {
				t.Errorf("answer %q (reasoning must stay out)", sc.out.Answer)
			}
			if len(sc.rec.Of(agent.ThinkingDelta)) == 0 {
				t.Errorf("reasoning should stream as thinking deltas")
			}
		})
	}
}
