package app_test

import (
	"slices"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
)

// The window's thumbs: a verdict on a finished answer is kept, shown on
// the conversation's turn when it is opened again, and replaced by a later
// one; a run of another conversation or an unknown verdict is refused.
func TestFeedbackOnAnAnswer(t *testing.T) {
	e := newEnv(t, setup{turns: []fake.Turn{
		fake.Calls(call("run_sql", map[string]any{"sql": regionSQL, "purpose": "orders by region"})),
		fake.Text("West has the most orders.\n\nFindings:\n- West leads [q1]"),
	}})
	e.load(t)
	chat := e.chat(t)
	res, err := e.app.Ask(chat, "Where do orders come from?")
	if err != nil {
		t.Fatal(err)
	}
	if out := e.rec.waitFinished(t, res.RunID, 20*time.Second); out.Status != agent.Done {
		t.Fatalf("run: %s %s", out.Status, out.Reason)
	}
	fb, err := e.app.Feedback(chat, res.RunID, "up", "")
	if err != nil || fb.Verdict != "up" || !slices.Equal(fb.SQL, []string{regionSQL}) {
		t.Fatalf("feedback %+v %v", fb, err)
	}
	if _, err := e.app.Feedback(chat, res.RunID, "down", "counts twice"); err != nil {
		t.Fatal(err)
	}
	c, err := e.app.GetChat(chat)
	if err != nil || len(c.Turns) != 1 || c.Turns[0].Feedback == nil || c.Turns[0].Feedback.Verdict != "down" || c.Turns[0].Feedback.Note != "counts twice" {
		t.Fatalf("the turn's verdict: %+v %v", c.Turns, err)
	}
	if _, err := e.app.Feedback(chat, res.RunID, "sideways", ""); codeOf(t, err) != app.CodeInvalid {
		t.Errorf("an unknown verdict: %v", err)
	}
	if _, err := e.app.Feedback(chat, "run_nope", "up", ""); codeOf(t, err) != app.CodeNotFound {
		t.Errorf("an unknown run: %v", err)
	}
}
