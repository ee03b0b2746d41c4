package app_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/data/store"
)

// crashedChat stores, in the workspace folder ws, a conversation whose
// answer was cut off by its process dying: a finished query and some text,
// then nothing. It returns the conversation's id.
func crashedChat(t *testing.T, ws, question string) string {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenDir(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.CreateConversation(ctx, "", ws)
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.Ask(ctx, c.ID, question)
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.Claim(ctx, p.Assistant.ID, "run_crashed")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Call(ctx, store.ToolCall{Seq: 1, CallID: "call_1", Step: 1, Name: "run_sql", Arguments: `{"sql":"` + regionSQL + `"}`, Result: "[q1] 4 rows", Ref: "q1"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Text(ctx, "West has the"); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	// The process writing it is gone: a process id no system hands out.
	db, err := sql.Open("sqlite", filepath.Join(ws, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE messages SET owner = '999999999/gone' WHERE status = 'generating'`); err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// An answer cut off by a crash is retried in its conversation: the same
// question is answered again after it, and the interrupted attempt stays.
func TestRetryAnswersAnInterruptedQuestionAgain(t *testing.T) {
	ws := t.TempDir()
	const question = "Which region has the most orders?"
	chat := crashedChat(t, ws, question)
	srv := fake.Start(t, fake.Options{Turns: answerTurns()})
	e := openApp(t, ws, srv)
	e.load(t)

	before, err := e.app.GetChat(chat)
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Turns) != 1 || before.Turns[0].Outcome == nil || before.Turns[0].Outcome.Status != agent.Canceled {
		t.Fatalf("before the retry: %+v", before.Turns)
	}
	res, err := e.app.Retry(chat)
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	out := e.rec.waitFinished(t, res.RunID, 20*time.Second)
	if out.Status != agent.Done || out.Summary != "West has the most orders." {
		t.Fatalf("retried run: %s %q %q", out.Status, out.Summary, out.Reason)
	}
	// The model was asked the stored question, not shown the cut-off answer.
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model was not asked")
	}
	last := reqs[0].Messages[len(reqs[0].Messages)-1]
	if agent.UserWords(last.Content) != question {
		t.Errorf("the model was asked %q", last.Content)
	}
	after, err := e.app.GetChat(chat)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Turns) != 2 {
		t.Fatalf("after the retry: %d turns", len(after.Turns))
	}
	old, now := after.Turns[0], after.Turns[1]
	if old.Question != question || old.Outcome.Status != agent.Canceled {
		t.Errorf("the interrupted attempt changed: %q %s", old.Question, old.Outcome.Status)
	}
	if now.Question != question || now.RunID != res.RunID || now.Outcome == nil || now.Outcome.Status != agent.Done {
		t.Errorf("the retry's turn: %q run %s (want %s), outcome %+v", now.Question, now.RunID, res.RunID, now.Outcome)
	}
	// A finished answer has nothing to retry.
	if _, err := e.app.Retry(chat); codeOf(t, err) != app.CodeInvalid {
		t.Errorf("retrying a finished answer: %v", err)
	}
}

// Retry follows Ask's claim rules: refused with "busy" while the chat has a
// run going, whether that run is a retry or a new question.
func TestRetryIsRefusedWhileARunIsGoing(t *testing.T) {
	release := make(chan struct{})
	var n atomic.Int32
	e := newEnv(t, setup{respond: func(fake.Request) fake.Turn {
		switch n.Add(1) {
		case 1:
			return fake.Failing(fake.Status(400, "the model cannot take this request"))
		case 2:
			<-release
		}
		return fake.Text("West has the most orders.")
	}})
	e.load(t)
	chat := e.chat(t)
	if _, err := e.app.Retry(chat); codeOf(t, err) != app.CodeInvalid {
		t.Errorf("retry in an empty chat: %v", err)
	}
	if _, err := e.app.Retry("chat_missing"); codeOf(t, err) != app.CodeNotFound {
		t.Errorf("retry in a chat that does not exist: %v", err)
	}
	first, err := e.app.Ask(chat, "Which region has the most orders?")
	if err != nil {
		t.Fatal(err)
	}
	if out := e.rec.waitFinished(t, first.RunID, 20*time.Second); out.Status != agent.Failed {
		t.Fatalf("first run: %s %q", out.Status, out.Reason)
	}
	retry, err := e.app.Retry(chat)
	if err != nil {
		t.Fatalf("retry a failed answer: %v", err)
	}
	// The retry waits for the model: the chat is busy.
	deadline := time.Now().Add(10 * time.Second)
	for n.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := e.app.Retry(chat); codeOf(t, err) != app.CodeBusy {
		t.Errorf("a second retry while the first runs: %v", err)
	}
	if _, err := e.app.Ask(chat, "And by month?"); codeOf(t, err) != app.CodeBusy {
		t.Errorf("a question while the retry runs: %v", err)
	}
	close(release)
	if out := e.rec.waitFinished(t, retry.RunID, 20*time.Second); out.Status != agent.Done {
		t.Fatalf("retried run: %s %q", out.Status, out.Reason)
	}
	c, err := e.app.GetChat(chat)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Turns) != 2 || c.Turns[0].Outcome.Status != agent.Failed || c.Turns[1].Outcome.Status != agent.Done {
		t.Errorf("turns after the retry: %+v", c.Turns)
	}
}

// A run the user stopped can be retried too.
func TestRetryAfterStop(t *testing.T) {
	var n atomic.Int32
	e := newEnv(t, setup{respond: func(fake.Request) fake.Turn {
		if n.Add(1) == 1 { // answers only after the user gave up
			return fake.Turn{Content: "Too late.", Delay: time.Minute}
		}
		return fake.Text("West has the most orders.")
	}})
	e.load(t)
	chat := e.chat(t)
	first, err := e.app.Ask(chat, "Which region has the most orders?")
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); n.Load() < 1 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if err := e.app.Cancel(first.RunID); err != nil {
		t.Fatal(err)
	}
	if out := e.rec.waitFinished(t, first.RunID, 5*time.Second); out.Status != agent.Canceled {
		t.Fatalf("stopped run: %s", out.Status)
	}
	retry, err := e.app.Retry(chat)
	if err != nil {
		t.Fatalf("retry a stopped answer: %v", err)
	}
	if out := e.rec.waitFinished(t, retry.RunID, 20*time.Second); out.Status != agent.Done || out.Summary != "West has the most orders." {
		t.Fatalf("retried run: %s %q %q", out.Status, out.Summary, out.Reason)
	}
}
