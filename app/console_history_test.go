package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/app/sqlhistory"
)

const runaway = "SELECT count(*) FROM range(1000000000) a, range(1000000000) b WHERE a.range + b.range = -1"

// TestConsoleTabsRunSideBySide: a runaway query in one tab does not hold
// up another tab's query, and stopping it stops that tab's alone.
func TestConsoleTabsRunSideBySide(t *testing.T) {
	e := newEnv(t, setup{})
	e.load(t)
	done := make(chan error, 1)
	go func() {
		_, err := e.app.RunConsoleSQL("slow", runaway)
		done <- err
	}()
	time.Sleep(500 * time.Millisecond)
	res, err := e.app.RunConsoleSQL("quick", "SELECT count(*) AS n FROM orders")
	if err != nil || res.Rows != 1 {
		t.Fatalf("the other tab's query: %v %v", res, err)
	}
	if ran, _ := e.app.CancelConsoleSQL("quick"); ran {
		t.Error("CancelConsoleSQL(quick) found a query running after it ended")
	}
	select {
	case err := <-done:
		t.Fatalf("the runaway query ended: %v", err)
	default:
	}
	if ran, _ := e.app.CancelConsoleSQL("slow"); !ran {
		t.Error("CancelConsoleSQL(slow) found no query")
	}
	select {
	case err := <-done:
		if codeOf(t, err) != app.CodeCanceled {
			t.Errorf("error %v, want canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the runaway query did not stop")
	}
}

// TestQueryHistoryKeepsEveryConsoleQuery: done, failed and stopped queries
// are kept with their rows, error and duration, newest first, searchable,
// in the workspace folder, across a restart.
func TestQueryHistoryKeepsEveryConsoleQuery(t *testing.T) {
	srv := fake.Start(t, fake.Options{})
	ws := t.TempDir()
	e := openApp(t, ws, srv)
	e.load(t)
	if got, err := e.app.QueryHistory("", 0); err != nil || len(got) != 0 {
		t.Fatalf("a new workspace's history: %v %v", got, err)
	}
	first, err := e.app.RunConsoleSQL("t1", "SELECT region, count(*) AS n FROM orders GROUP BY region")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.app.RunConsoleSQL("t2", "SELECT * FROM ordrs"); codeOf(t, err) != app.CodeSQL {
		t.Fatalf("want a SQL error, got %v", err)
	}
	if _, err := e.app.RunConsoleSQL("t2", "   "); codeOf(t, err) != app.CodeInvalid {
		t.Fatalf("want invalid, got %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := e.app.RunConsoleSQL("t3", runaway); done <- err }()
	time.Sleep(400 * time.Millisecond)
	e.app.CancelConsoleSQL("t3")
	<-done

	got, err := e.app.QueryHistory("", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d entries, want 3 (a blank query is not kept): %+v", len(got), got)
	}
	stopped, failed, ok := got[0], got[1], got[2]
	if stopped.Outcome != "canceled" || stopped.SQL != runaway || stopped.DurationMS < 300 {
		t.Errorf("stopped %+v", stopped)
	}
	if failed.Outcome != "failed" || !strings.Contains(failed.Error, "ordrs") {
		t.Errorf("failed %+v", failed)
	}
	if ok.Outcome != "done" || ok.Rows != first.Rows || ok.Rows < 2 || ok.Error != "" || ok.At.IsZero() || ok.DurationMS <= 0 {
		t.Errorf("done %+v", ok)
	}
	if found, _ := e.app.QueryHistory("GROUP BY", 0); len(found) != 1 || found[0].ID != ok.ID {
		t.Errorf("search GROUP BY: %+v", found)
	}
	if found, _ := e.app.QueryHistory("does not exist", 0); len(found) != 1 || found[0].ID != failed.ID {
		t.Errorf("search by error: %+v", found)
	}
	if _, err := e.app.QueryHistory("", 501); codeOf(t, err) != app.CodeInvalid {
		t.Errorf("limit 501: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, sqlhistory.FileName)); err != nil {
		t.Errorf("the history is not in the workspace folder: %v", err)
	}
	e.app.Shutdown(t.Context())

	again := openApp(t, ws, srv)
	back, err := again.app.QueryHistory("", 0)
	if err != nil || len(back) != 3 || back[2].ID != ok.ID {
		t.Fatalf("after a restart: %+v %v", back, err)
	}
	if err := again.app.ClearQueryHistory(); err != nil {
		t.Fatal(err)
	}
	if back, _ := again.app.QueryHistory("", 0); len(back) != 0 {
		t.Errorf("after ClearQueryHistory: %+v", back)
	}

	// A history file that is not one is reported with what to do, kept
	// as it was, and queries still run.
	path := filepath.Join(ws, sqlhistory.FileName)
	if err := os.WriteFile(path, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := again.app.RunConsoleSQL("t1", "SELECT 1"); err != nil {
		t.Errorf("a query with an unreadable history: %v", err)
	}
	_, err = again.app.QueryHistory("", 0)
	if codeOf(t, err) != app.CodeFile || !strings.Contains(app.AsError(err).Hint, "Move the file away") {
		t.Errorf("an unreadable history: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "garbage" {
		t.Errorf("the unreadable file was overwritten: %q", b)
	}
}

// TestSearchChatsFindsAnswerText: a word only an answer holds finds its
// conversation, with a snippet around it; the title alone does not hold
// it.
func TestSearchChatsFindsAnswerText(t *testing.T) {
	e := newEnv(t, setup{respond: func(r fake.Request) fake.Turn {
		for _, m := range r.Messages {
			if m.Role == llm.User && strings.Contains(agent.UserWords(m.Content), "customers") {
				return fake.Text("There are many customers.")
			}
		}
		return fake.Text("Orders come mostly from the West; the East follows.")
	}})
	e.load(t)
	regions := e.chat(t)
	e.answered(t, regions, "Where do orders come from?")
	other := e.chat(t)
	e.answered(t, other, "How many customers?")

	hits, err := e.app.SearchChats("west")
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ID != regions || hits[0].In != "answer" || hits[0].Matches != 1 {
		t.Fatalf("hits %+v", hits)
	}
	if strings.Contains(strings.ToLower(hits[0].Name), "west") {
		t.Fatalf("the title %q holds the word: the test would not show a search of answers", hits[0].Name)
	}
	if sn := hits[0].Snippet; sn.Before != "Orders come mostly from the " || sn.Match != "West" || sn.After != "; the East follows." {
		t.Errorf("snippet %+v", sn)
	}
	if hits, _ := e.app.SearchChats("customers"); len(hits) != 1 || hits[0].ID != other {
		t.Errorf("customers: %+v", hits)
	}
	if hits, err := e.app.SearchChats("  "); err != nil || len(hits) != 0 {
		t.Errorf("a blank search: %+v %v", hits, err)
	}
}
