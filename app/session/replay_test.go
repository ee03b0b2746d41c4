package session_test

import (
	"encoding/json"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/tools"
)

// A call stored before calls carried their view (a trace written by an
// older Loupe, or an answer cut off by a crash and rebuilt from its stored
// calls) is replayed with the view of the tool as it is now, so that the
// window shows "Ran a query", not "Used run sql". A view stored with the
// call is kept.
func TestReplayedCallsGetTheToolsViews(t *testing.T) {
	old := []agent.Event{
		{Type: agent.RunStarted, RunID: "run_1"},
		{Type: agent.ToolCalled, Step: 1, Call: &agent.CallEvent{ID: "c1", Name: "run_sql", Arguments: json.RawMessage(`{"sql":"SELECT 1"}`)}},
		{Type: agent.ToolCalled, Step: 1, Call: &agent.CallEvent{ID: "c2", Name: "find_outliers", Arguments: json.RawMessage(`{}`)}},
		{Type: agent.ToolCalled, Step: 1, Call: &agent.CallEvent{ID: "c3", Name: "run_sql", View: &tools.View{Did: "kept"}}},
		{Type: agent.RunFinished, RunID: "run_1"},
	}
	trace, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	m := store.Message{ID: "m1", RunID: "run_1", Role: store.Assistant, Status: store.Complete}
	turn := session.TurnOf(m, store.Blob{Trace: trace}, nil)
	want := map[string]string{"c1": "Ran a query", "c2": "", "c3": "kept"}
	for _, e := range turn.Events {
		if e.Type != agent.ToolCalled {
			continue
		}
		if e.Call.View == nil || e.Call.View.Did == "" || (want[e.Call.ID] != "" && e.Call.View.Did != want[e.Call.ID]) {
			t.Errorf("call %s (%s): view %+v, want Did %q", e.Call.ID, e.Call.Name, e.Call.View, want[e.Call.ID])
		}
	}

	// An answer stored without its trace: its events are made from its calls.
	m.ToolCalls = []store.ToolCall{{Seq: 1, CallID: "c1", Step: 1, Name: "run_sql", Arguments: `{"sql":"SELECT 1"}`, Result: "1 row"}}
	turn = session.TurnOf(m, store.Blob{}, nil)
	found := false
	for _, e := range turn.Events {
		if e.Type == agent.ToolCalled {
			found = true
			if e.Call.View == nil || e.Call.View.Did != "Ran a query" {
				t.Errorf("rebuilt call: view %+v, want Ran a query", e.Call.View)
			}
		}
	}
	if !found {
		t.Fatal("no call rebuilt from the stored message")
	}
}
