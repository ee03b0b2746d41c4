package app_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
	"github.com/loupeapp/loupe/tools/tooltest"
)

// A refresh the model is slow to word is stopped by CancelRefresh within
// a second, fails with code "canceled" and keeps no new version.
func TestCancelRefreshStopsIt(t *testing.T) {
	data, err := os.ReadFile(tooltest.Fixture("orders.csv"))
	if err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(t.TempDir(), "orders.csv")
	if err := os.WriteFile(csv, data, 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, setup{turns: []fake.Turn{
		fake.Calls(call("run_sql", map[string]any{"sql": regionSQL, "purpose": "orders by region"})),
		fake.Text("West has the most orders.\n\nFindings:\n- West leads [q1]"),
		{Content: "# Where the orders come from\n\n## Summary\n\nWest leads.\n\n{{table:q1}}"},
		{Content: "West still leads.", Delay: 30 * time.Second}, // the words about what changed
	}})
	if reps, err := e.app.OpenFiles([]string{csv}); err != nil || reps[0].Error != nil {
		t.Fatalf("load: %v %+v", err, reps)
	}
	chat := e.chat(t)
	res, err := e.app.Ask(chat, "Where do orders come from?")
	if err != nil {
		t.Fatal(err)
	}
	if out := e.rec.waitFinished(t, res.RunID, 20*time.Second); out.Status != agent.Done {
		t.Fatalf("run: %s %s", out.Status, out.Reason)
	}
	if _, err := e.app.WriteReport(chat, res.RunID, nil); err != nil {
		t.Fatal(err)
	}
	// More orders from the West: the refresh has a number to word.
	if err := os.WriteFile(csv, append(data, []byte("9001,3,2024-03-23,West,Widget,3,9.99,pending\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(csv, later, later); err != nil {
		t.Fatal(err)
	}

	done := make(chan error, 1)
	go func() {
		_, err := e.app.RefreshReport(chat, res.RunID)
		done <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for len(e.srv.Requests()) < 4 { // the answer's two, the report's, the refresh's words
		if time.Now().After(deadline) {
			t.Fatalf("the refresh never asked the model for its words (%d requests)", len(e.srv.Requests()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	if err := e.app.CancelRefresh(chat); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if took := time.Since(start); took > time.Second {
			t.Errorf("the refresh stopped %v after the cancel, want within 1 s", took)
		}
		if code := codeOf(t, err); code != app.CodeCanceled {
			t.Errorf("a stopped refresh: code %q (%v), want canceled", code, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("CancelRefresh did not stop the refresh within 5 s")
	}
	vs, err := e.app.ReportVersions(chat)
	if err != nil || len(vs) != 1 {
		t.Errorf("versions after a stopped refresh: %+v %v, want the one written", vs, err)
	}
	if err := e.app.CancelRefresh(chat); err != nil {
		t.Errorf("a cancel with nothing going: %v", err)
	}
}
