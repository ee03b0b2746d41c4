package app_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/python"
)

// openApp is an App over the workspace folder ws talking to srv, with its
// events recorded, as newEnv builds one; reopening a folder is how a
// restart of Loupe looks.
func openApp(t *testing.T, ws string, srv *fake.Server) *env {
	t.Helper()
	e := &env{rec: newRecorder(), keys: app.NewMemoryKeychain(), config: t.TempDir(), saveDir: t.TempDir(), srv: srv}
	e.app = app.New(app.Options{WorkspaceDir: ws, ConfigDir: e.config, Keychain: e.keys, Dialogs: app.SaveInto{Dir: e.saveDir},
		Emit: e.rec.emit, Getenv: func(string) string { return "" }, DockerHost: "unix://" + t.TempDir() + "/no-docker.sock"})
	t.Cleanup(func() { e.app.Shutdown(context.Background()) })
	err := e.app.SaveSettings(app.SettingsUpdate{Settings: app.Settings{Provider: "ollama", Model: "qwen3:8b",
		OllamaURL: srv.OllamaURL(), OpenAIBaseURL: "https://api.openai.com/v1", MaxSteps: 8, TimeoutSeconds: 60, Theme: "system"}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestConversationsSurviveARestart(t *testing.T) {
	spec := map[string]any{"mark": "bar", "encoding": map[string]any{
		"x": map[string]any{"field": "region", "type": "nominal"},
		"y": map[string]any{"field": "orders", "type": "quantitative"},
	}}
	srv := fake.Start(t, fake.Options{Turns: []fake.Turn{
		fake.Calls(call("run_sql", map[string]any{"sql": regionSQL, "purpose": "orders by region"})),
		fake.Calls(call("create_chart", map[string]any{"title": "Orders by region", "sql": regionSQL, "spec": spec})),
		{Content: "West has the most orders.\n\nFindings:\n- West leads [q1, c1]", Chunks: 10, ChunkDelay: time.Millisecond},
		fake.Text("# Where the orders come from\n\n## Summary\n\nWest leads.\n\n{{chart:c1}}\n\n{{table:q1}}"),
	}})
	ws := t.TempDir()
	first := openApp(t, ws, srv)
	first.load(t)
	chat := first.chat(t)
	res, err := first.app.Ask(chat, "Where do orders come from?")
	if err != nil {
		t.Fatal(err)
	}
	if out := first.rec.waitFinished(t, res.RunID, 20*time.Second); out.Status != agent.Done {
		t.Fatalf("run: %s %s", out.Status, out.Reason)
	}
	before, err := first.app.GetChat(chat)
	if err != nil {
		t.Fatal(err)
	}
	first.app.Shutdown(context.Background())

	second := openApp(t, ws, srv)
	list, err := second.app.ListChats()
	if err != nil || len(list) != 1 || list[0].ID != chat || list[0].Name != "Where do orders come from?" {
		t.Fatalf("chats after a restart: %+v %v", list, err)
	}
	after, err := second.app.GetChat(chat)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Turns) != 1 || len(after.Turns[0].Events) != len(before.Turns[0].Events) {
		t.Fatalf("turns %d, events %d (before the restart %d)", len(after.Turns), len(after.Turns[0].Events), len(before.Turns[0].Events))
	}
	turn := after.Turns[0]
	out := turn.Outcome
	if turn.Question != "Where do orders come from?" || turn.RunID != res.RunID || out == nil || out.Status != agent.Done ||
		out.Summary != "West has the most orders." || len(out.Evidence) != 2 || out.Evidence[1].Chart == nil {
		t.Fatalf("turn after a restart: %q %s %+v", turn.Question, turn.RunID, out)
	}
	last := turn.Events[len(turn.Events)-1]
	if last.Type != agent.RunFinished || last.Finished == nil || last.Finished.Summary != out.Summary {
		t.Errorf("the last event must be run_finished with the outcome: %+v", last)
	}
	// The old answer still becomes a report: its evidence was kept.
	rep, err := second.app.WriteReport(chat, res.RunID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Title != "Where the orders come from" || len(rep.Charts) != 1 || !strings.Contains(rep.Charts[0].SVG, "<svg") || !strings.Contains(rep.Markdown, "| West") {
		t.Errorf("report of a reopened conversation: %q, %d charts\n%s", rep.Title, len(rep.Charts), rep.Markdown)
	}
}

// An answer whose process died mid-way is shown as stopped, with what it
// had said and the calls it had finished, and the chat takes the question
// again.
func TestAnAnswerLeftByACrashIsInterruptedAndRetryable(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	st, err := store.OpenDir(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	done, err := st.CreateConversation(ctx, "Done before", ws)
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.Ask(ctx, done.ID, "How many customers?")
	if err != nil {
		t.Fatal(err)
	}
	r, _ := st.Claim(ctx, p.Assistant.ID, "run_done")
	if err := r.Finish(ctx, store.Final{Status: store.Complete, Content: "There are 12 customers."}); err != nil {
		t.Fatal(err)
	}
	crashed, _ := st.CreateConversation(ctx, "", ws)
	p, _ = st.Ask(ctx, crashed.ID, "Which region has the most orders?")
	r, _ = st.Claim(ctx, p.Assistant.ID, "run_crashed")
	if err := r.Call(ctx, store.ToolCall{Seq: 1, CallID: "call_1", Step: 1, Name: "run_sql", Arguments: `{"sql":"` + regionSQL + `"}`, Result: "[q1] 4 rows", Ref: "q1"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Text(ctx, "West has the most"); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	// The process writing it is gone: a process id no system hands out.
	db, err := sql.Open("sqlite", filepath.Join(ws, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE messages SET owner = '999999999/gone' WHERE status = 'generating'`); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()

	srv := fake.Start(t, fake.Options{Turns: []fake.Turn{fake.Text("West has the most orders.\n\nFindings:\n- West leads")}})
	e := openApp(t, ws, srv)
	c, err := e.app.GetChat(crashed.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Turns) != 1 {
		t.Fatalf("%d turns", len(c.Turns))
	}
	turn := c.Turns[0]
	var text string
	var call, result bool
	for _, ev := range turn.Events {
		switch ev.Type {
		case agent.TextDelta:
			text += ev.Text
		case agent.ToolCalled:
			call = ev.Call.Name == "run_sql"
		case agent.ToolResult:
			result = ev.Result.Ref == "q1"
		}
	}
	if turn.Outcome == nil || turn.Outcome.Status != agent.Canceled || !strings.Contains(turn.Outcome.Reason, "Retry") ||
		text != "West has the most" || !call || !result || turn.Events[len(turn.Events)-1].Type != agent.RunFinished {
		t.Fatalf("interrupted turn: outcome %+v, text %q, call %v, result %v", turn.Outcome, text, call, result)
	}
	other, err := e.app.GetChat(done.ID)
	if err != nil || other.Turns[0].Outcome.Status != agent.Done || other.Turns[0].Outcome.Answer != "There are 12 customers." {
		t.Errorf("the other conversation changed: %+v %v", other, err)
	}
	e.load(t)
	res, err := e.app.Ask(crashed.ID, turn.Question)
	if err != nil {
		t.Fatalf("asking again after the crash: %v", err)
	}
	if out := e.rec.waitFinished(t, res.RunID, 20*time.Second); out.Status != agent.Done {
		t.Fatalf("retry: %s %s", out.Status, out.Reason)
	}
	c, _ = e.app.GetChat(crashed.ID)
	if len(c.Turns) != 2 || c.Turns[0].Outcome.Status != agent.Canceled || c.Turns[1].Outcome.Status != agent.Done {
		t.Errorf("after the retry: %d turns", len(c.Turns))
	}
}

// Two conversations answer at once; each stores its own answer.
func TestConcurrentRunsInTwoChats(t *testing.T) {
	e := newEnv(t, setup{respond: func(r fake.Request) fake.Turn {
		q := agent.UserWords(r.Messages[len(r.Messages)-1].Content)
		return fake.Turn{Content: "Answer to: " + q, Chunks: 20, ChunkDelay: 3 * time.Millisecond}
	}})
	e.load(t)
	chats := []string{e.chat(t), e.chat(t)}
	runs := make([]string, 2)
	for i, c := range chats {
		res, err := e.app.Ask(c, []string{"first chat's question", "second chat's question"}[i])
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = res.RunID
	}
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out := e.rec.waitFinished(t, r, 20*time.Second); out.Status != agent.Done {
				t.Errorf("run %s: %s", r, out.Status)
			}
		}()
	}
	wg.Wait()
	for i, id := range chats {
		c, err := e.app.GetChat(id)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"Answer to: first chat's question", "Answer to: second chat's question"}[i]
		if len(c.Turns) != 1 || c.Turns[0].Outcome.Answer != want || c.Turns[0].RunID != runs[i] {
			t.Errorf("chat %d: %+v", i, c.Turns)
		}
	}
}

// BenchmarkGetChat1000 opens, as the window does, a conversation of 1,000
// messages whose 500 answers each kept a trace (a query with a 30-row
// preview, text, usage) and an outcome with its transcript. Target:
// ≤ 100 ms.
func BenchmarkGetChat1000(b *testing.B) {
	ctx := context.Background()
	ws := b.TempDir()
	st, err := store.OpenDir(ctx, ws)
	if err != nil {
		b.Fatal(err)
	}
	c, _ := st.CreateConversation(ctx, "", ws)
	preview := make([][]any, 30)
	for i := range preview {
		preview[i] = []any{"West", 1000 + i, 12.5 * float64(i)}
	}
	table := &tools.Table{Ref: "r1", Columns: []tools.Column{{Name: "region", Type: "VARCHAR"}, {Name: "n", Type: "BIGINT"}, {Name: "x", Type: "DOUBLE"}}, Rows: 30, Kept: 30, Preview: preview}
	now := time.Now()
	out := &agent.Outcome{Status: agent.Done, Answer: strings.Repeat("West leads. ", 30), Summary: "West leads.",
		Evidence:   []agent.Evidence{{Ref: "q1", CallID: "call_1", Tool: "run_sql", SQL: regionSQL, Summary: "30 rows", Table: table}},
		Transcript: []llm.Message{{Role: llm.User, Content: "q"}, {Role: llm.Tool, Content: strings.Repeat("| West | 1000 | 12.5 |\n", 30)}, {Role: llm.Assistant, Content: "West leads."}}}
	trace := []agent.Event{{Type: agent.RunStarted, At: now}, {Type: agent.StepStarted, Step: 1, At: now},
		{Type: agent.ToolCalled, Step: 1, At: now, Call: &agent.CallEvent{ID: "call_1", Name: "run_sql", Arguments: []byte(`{"sql":"` + regionSQL + `"}`)}},
		{Type: agent.ToolResult, Step: 1, At: now, Result: &agent.ResultEvent{CallID: "call_1", Name: "run_sql", Ref: "q1", Summary: "30 rows", Display: tools.Display{Kind: tools.KindTable, SQL: regionSQL, Table: table}}},
		{Type: agent.StepStarted, Step: 2, At: now}, {Type: agent.TextDelta, Step: 2, At: now, Text: out.Answer},
		{Type: agent.UsageReported, Step: 2, At: now, Usage: &llm.Usage{PromptTokens: 3000, CompletionTokens: 200}}, {Type: agent.RunFinished, At: now}}
	out.Evidence[0].Display = &trace[3].Result.Display
	for i := range 500 {
		p, err := st.Ask(ctx, c.ID, "Which region has the most orders?")
		if err != nil {
			b.Fatal(err)
		}
		r, _ := st.Claim(ctx, p.Assistant.ID, fmt.Sprintf("run_%d", i))
		fin := *out
		fin.RunID = r.RunID
		evs := append([]agent.Event(nil), trace...)
		evs[len(evs)-1].Finished = &fin
		if err := session.NewRecorder(r).Record(evs...); err != nil { // stored as a run stores it
			b.Fatal(err)
		}
	}
	_ = st.Close()
	a := app.New(app.Options{WorkspaceDir: ws, ConfigDir: b.TempDir(), Keychain: app.NewMemoryKeychain(), Getenv: func(string) string { return "" }})
	defer a.Shutdown(ctx)
	b.ResetTimer()
	for b.Loop() {
		chat, err := a.GetChat(c.ID)
		if err != nil || len(chat.Turns) != 500 || chat.Turns[499].Outcome == nil {
			b.Fatalf("get chat: %v", err)
		}
	}
}

// Deleting a conversation deletes the files its Python runs wrote, and
// only those.
func TestDeleteChatRemovesItsPythonFiles(t *testing.T) {
	e := newEnv(t, setup{})
	gone, kept := e.chat(t), e.chat(t)
	for _, id := range []string{gone, kept} {
		dir := filepath.Join(python.FilesRoot(e.wsDir), id, "run1")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "plot.png"), []byte("png"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.app.DeleteChat(gone); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(python.FilesRoot(e.wsDir), gone)); !os.IsNotExist(err) {
		t.Errorf("the deleted conversation's files are still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(python.FilesRoot(e.wsDir), kept, "run1", "plot.png")); err != nil {
		t.Errorf("the other conversation's files went too: %v", err)
	}
}
