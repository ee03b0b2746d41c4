package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools/tooltest"
)

const regionSQL = "SELECT region, count(*) AS orders FROM orders GROUP BY region ORDER BY orders DESC"

// events is a sink keeping what it got.
type events struct {
	mu  sync.Mutex
	got []agent.Event
}

func (e *events) Emit(ev agent.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, ev)
}

// recording records each event before keeping it, as the CLI does.
type recording struct {
	rec  *session.Recorder
	next *events
	err  error
}

func (r *recording) Emit(ev agent.Event) {
	if err := r.rec.Record(ev); err != nil && r.err == nil {
		r.err = err
	}
	r.next.Emit(ev)
}

func call(t *testing.T, name string, args map[string]any) fake.Call {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return fake.Call{Name: name, Args: string(b)}
}

// world is a workspace holding the orders fixture, its conversation
// store and a provider talking to a fake model server.
type world struct {
	ws  *workspace.Workspace
	ret *retrieve.Retrieval
	st  *store.Store
	p   llm.Provider
	dir string
	srv *fake.Server
}

func newWorld(t *testing.T, turns ...fake.Turn) *world {
	t.Helper()
	return newWorldOn(t, provider.Ollama, fake.Options{Turns: turns})
}

// newWorldOn is a world whose model server speaks wire and answers as
// opts say.
func newWorldOn(t *testing.T, wire string, opts fake.Options) *world {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	ws, err := workspace.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	if _, err := ws.Loader.Load(ctx, tooltest.Fixture("orders.csv"), load.Options{}); err != nil {
		t.Fatal(err)
	}
	ret, err := retrieve.OpenRetrieval(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ret.Close() })
	st, err := store.OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	srv := fake.Start(t, opts)
	url := srv.OllamaURL()
	if wire == provider.OpenAI {
		url = srv.OpenAIURL()
	}
	p, err := provider.Open(provider.Config{Provider: wire, Model: "qwen3:8b", BaseURL: url, APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	return &world{ws: ws, ret: ret, st: st, p: p, dir: dir, srv: srv}
}

// ask stores question in chatID (a new conversation when empty) and
// answers it with session.Ask over the workspace.
func (w *world) ask(t *testing.T, chatID, question string) (*store.Pair, *agent.Outcome, []agent.Event) {
	t.Helper()
	return w.askWith(t, chatID, question, "")
}

// askAt asks question in a new conversation at privacy level.
func (w *world) askAt(t *testing.T, question string, level privacy.Level) (*store.Pair, *agent.Outcome, []agent.Event) {
	t.Helper()
	return w.askWith(t, "", question, level)
}

func (w *world) askWith(t *testing.T, chatID, question string, level privacy.Level) (*store.Pair, *agent.Outcome, []agent.Event) {
	t.Helper()
	ctx := context.Background()
	if chatID == "" {
		c, err := w.st.CreateConversation(ctx, "", w.dir)
		if err != nil {
			t.Fatal(err)
		}
		chatID = c.ID
	}
	pair, err := w.st.Ask(ctx, chatID, question)
	if err != nil {
		t.Fatal(err)
	}
	claim, err := w.st.Claim(ctx, pair.Assistant.ID, "run_"+pair.Assistant.ID)
	if err != nil {
		t.Fatal(err)
	}
	rec := session.NewRecorder(claim)
	rec.MergeDeltas = true
	sink := &recording{rec: rec, next: &events{}}
	var ready []agent.Input
	out, err := session.Ask(ctx, session.AskRequest{Store: w.st, Pair: pair, Recorder: rec,
		Target: &session.Workspace{WS: w.ws, Retrieval: w.ret}, Results: results.New(results.Config{}),
		Provider: w.p, Model: "qwen3:8b", Options: assemble.Options{MaxSteps: 8, Privacy: level}, Sink: sink,
		Ready: func(in agent.Input) { ready = append(ready, in) }})
	if err != nil {
		t.Fatal(err)
	}
	if sink.err != nil {
		t.Fatalf("record: %v", sink.err)
	}
	if len(ready) != 1 || len(ready[0].Schema.Tables) == 0 || ready[0].Question != question {
		t.Fatalf("Ready got %+v", ready)
	}
	return pair, out, sink.next.got
}

// One Ask retrieves the tables, runs the agent, records every event and
// keeps the queries; the stored answer replays as it streamed, a
// follow-up sees it as history, and its report is saved, found by its run
// and exported from the store.
func TestAskRecordReplayReport(t *testing.T) {
	w := newWorld(t,
		fake.Calls(call(t, "run_sql", map[string]any{"sql": regionSQL, "purpose": "orders by region"})),
		fake.Text("West has the most orders.\n\nFindings:\n- West leads [q1]"),
		fake.Text("The West leads, as said before."),
		fake.Text("# Where the orders come from\n\n## Summary\n\nWest leads.\n\n{{table:q1}}\n\n## Caveats\n\nForty orders only."),
	)
	ctx := context.Background()
	pair, out, evs := w.ask(t, "", "Where do orders come from?")
	if out.Status != agent.Done || !strings.Contains(out.Answer, "West has the most orders.") {
		t.Fatalf("outcome %s %q %s", out.Status, out.Answer, out.Reason)
	}
	if evs[len(evs)-1].Type != agent.RunFinished {
		t.Fatalf("the last event is %s", evs[len(evs)-1].Type)
	}
	// Stored and replayed.
	m, err := w.st.MessageByRun(ctx, "run_"+pair.Assistant.ID)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := w.st.Message(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if whole.Status != store.Complete || len(whole.ToolCalls) != 1 || whole.ToolCalls[0].Name != "run_sql" ||
		len(whole.Datasets) != 1 || whole.Datasets[0] != "orders" {
		t.Fatalf("stored answer %+v", whole)
	}
	b, err := w.st.BlobOf(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	turn := session.TurnOf(*whole, b, nil)
	if turn.Outcome == nil || turn.Outcome.Status != agent.Done || len(turn.Events) == 0 ||
		turn.Events[len(turn.Events)-1].Finished == nil || len(turn.Outcome.Evidence) != 1 || turn.Outcome.Evidence[0].Table == nil {
		t.Fatalf("replayed turn %+v", turn)
	}
	stored, err := session.OutcomeOf(b)
	if err != nil || stored == nil || stored.Evidence[0].Table == nil {
		t.Fatalf("OutcomeOf: %+v %v", stored, err)
	}
	// A follow-up carries the first answer as history.
	follow, out2, _ := w.ask(t, pair.User.ConversationID, "And how many in the West?")
	if out2.Status != agent.Done {
		t.Fatalf("follow-up %s %s", out2.Status, out2.Reason)
	}
	hist, err := session.History(ctx, w.st, follow, w.p, "qwen3:8b", "")
	if err != nil {
		t.Fatal(err)
	}
	var said bool
	for _, h := range hist {
		said = said || strings.Contains(h.Content, "West has the most orders.")
	}
	if !said {
		t.Errorf("the follow-up's history lacks the first answer: %+v", hist)
	}

	// No report yet; then one, found by its run and exported.
	if r, err := session.ReportOfRun(ctx, w.st, "run_"+pair.Assistant.ID); err != nil || r != nil {
		t.Fatalf("report before writing: %+v %v", r, err)
	}
	if _, err := session.ReportOfRun(ctx, w.st, "run_nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("report of an unknown run: %v", err)
	}
	written, err := session.WriteReport(ctx, session.ReportRequest{Store: w.st, MessageID: m.ID, Question: "Where do orders come from?",
		Outcome: stored, Provider: w.p, Model: "qwen3:8b"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := session.ReportOfRun(ctx, w.st, "run_"+pair.Assistant.ID)
	if err != nil || got == nil || got.ID != written.ID || got.Report.Markdown() != written.Report.Markdown() {
		t.Fatalf("report by run: %+v %v", got, err)
	}
	latest, err := session.LatestReport(ctx, w.st, pair.User.ConversationID)
	if err != nil || latest == nil || latest.ID != written.ID {
		t.Fatalf("latest report: %+v %v", latest, err)
	}
	out3 := t.TempDir()
	files, err := session.Export(ctx, w.st, got, session.ExportFolder, filepath.Join(out3, "folder"))
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(files.Markdown)
	if err != nil || !strings.Contains(string(md), "Forty orders only.") || !strings.Contains(string(md), "| West") {
		t.Errorf("report.md %v:\n%s", err, md)
	}
	page := filepath.Join(out3, "page", "where.html")
	if files, err := session.Export(ctx, w.st, got, session.ExportHTML, page); err != nil || files.HTML != page {
		t.Fatalf("html export %+v %v", files, err)
	}
	if left, _ := os.ReadDir(filepath.Dir(page)); len(left) != 1 {
		t.Errorf("the html export left %d entries beside the page", len(left))
	}
	if _, err := session.Export(ctx, w.st, got, "pdf", out3); err == nil {
		t.Error("an unknown format was exported")
	}
	reps, err := w.st.Reports(ctx, pair.User.ConversationID)
	if err != nil || len(reps) != 1 || len(reps[0].Exports) != 2 {
		t.Errorf("stored reports %+v %v: want one with two exports", reps, err)
	}
	if _, err := session.WriteReport(ctx, session.ReportRequest{Store: w.st, MessageID: m.ID, Outcome: &agent.Outcome{Status: agent.Failed}}); err == nil {
		t.Error("a report was written from a failed answer")
	}

	// Nothing to retry after a finished answer.
	var se *session.Error
	if _, err := session.RetryLast(ctx, w.st, pair.User.ConversationID); !errors.As(err, &se) || se.Code != session.CodeInvalid {
		t.Errorf("retrying a finished answer: %v", err)
	}
	if _, err := session.RetryLast(ctx, w.st, "conv_nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("retrying in an unknown conversation: %v", err)
	}
}

// A run that failed is retried: a new answer follows the failed one,
// which stays.
func TestRetryLastAfterAFailure(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	c, err := w.st.CreateConversation(ctx, "", w.dir)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := w.st.Ask(ctx, c.ID, "How many?")
	if err != nil {
		t.Fatal(err)
	}
	claim, err := w.st.Claim(ctx, pair.Assistant.ID, "run_1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := session.RetryLast(ctx, w.st, c.ID); !errors.Is(err, store.ErrBusy) {
		t.Errorf("retrying while the answer is written: %v", err)
	}
	rec := session.NewRecorder(claim)
	if err := rec.Record(agent.Event{Type: agent.RunFinished, RunID: "run_1", Finished: &agent.Outcome{RunID: "run_1", Status: agent.Failed, Reason: "boom"}}); err != nil {
		t.Fatal(err)
	}
	again, err := session.RetryLast(ctx, w.st, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if again.User.Content != "How many?" || again.Assistant.ID == pair.Assistant.ID {
		t.Errorf("retry pair %+v", again)
	}
	th, err := w.st.Thread(ctx, c.ID)
	if err != nil || len(th.Messages) < 3 {
		t.Fatalf("thread after the retry: %+v %v", th, err)
	}
}
