package session_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/store"
)

// Thumbs up on an answer verifies its question and SQL: a later, similar
// question in another conversation gets them in its prompt as an example
// (the fake server's request log shows it), and the trace says which.
// Thumbs down withdraws them.
func TestAVerifiedAnswerIsOfferedToALaterQuestion(t *testing.T) {
	w := newWorld(t,
		fake.Calls(call(t, "run_sql", map[string]any{"sql": regionSQL, "purpose": "orders by region"})),
		fake.Text("West has the most orders.\n\nFindings:\n- West leads [q1]"),
		fake.Text("Same as before: the West."),
		fake.Text("West, at the schema level."),
		fake.Text("Still the West."),
	)
	ctx := context.Background()
	first, out, _ := w.ask(t, "", "How many orders come from each region?")
	if out.Status != agent.Done {
		t.Fatalf("first answer %s %s", out.Status, out.Reason)
	}
	// Before any verdict, nothing is offered.
	if strings.Contains(system(t, w.srv, 0), "## Verified queries") {
		t.Fatal("the first prompt offers verified queries before any verdict")
	}
	fb, err := session.GiveFeedback(ctx, session.FeedbackRequest{Store: w.st, Memory: w.ret.Memory, ChatID: first.User.ConversationID,
		Verdict: store.Up, Note: "checked against the ledger"})
	if err != nil {
		t.Fatal(err)
	}
	if fb.Turn != 1 || fb.Verdict != store.Up || !slices.Equal(fb.SQL, []string{regionSQL}) {
		t.Errorf("feedback %+v", fb)
	}
	kept, err := w.st.FeedbackOf(ctx, first.User.ConversationID)
	if err != nil || kept[first.Assistant.ID].Note != "checked against the ledger" {
		t.Errorf("stored feedback %+v %v", kept, err)
	}

	_, later, _ := w.ask(t, "", "Which region has the most orders?")
	sys := system(t, w.srv, 2)
	if !strings.Contains(sys, "## Verified queries") || !strings.Contains(sys, `Question: "How many orders come from each region?"`) ||
		!strings.Contains(sys, "SQL: "+regionSQL) {
		t.Fatalf("the later prompt does not offer the verified query:\n%s", sys)
	}
	if !slices.ContainsFunc(later.Meta.Notes, func(n string) bool {
		return strings.Contains(n, "Offered 1 verified query as an example: “How many orders come from each region?”")
	}) {
		t.Errorf("the trace does not say which verified query was offered: %q", later.Meta.Notes)
	}

	// At the schema privacy level no verified query is offered: its literals are values.
	w.askAt(t, "Which region has the most orders?", privacy.Schema)
	if sys := system(t, w.srv, 3); strings.Contains(sys, "## Verified queries") {
		t.Errorf("a verified query is offered at the schema level:\n%s", sys)
	}

	// Thumbs down: the query is withdrawn and never offered again.
	if _, err := session.GiveFeedback(ctx, session.FeedbackRequest{Store: w.st, Memory: w.ret.Memory, ChatID: first.User.ConversationID,
		Turn: 1, Verdict: store.Down, Note: "West is wrong: returns count twice"}); err != nil {
		t.Fatal(err)
	}
	w.ask(t, "", "Which region has the most orders?")
	if sys := system(t, w.srv, 4); strings.Contains(sys, "## Verified queries") {
		t.Errorf("a rejected query is still offered:\n%s", sys)
	}
	for _, bad := range []session.FeedbackRequest{
		{Store: w.st, ChatID: first.User.ConversationID, Verdict: "sideways"},
		{Store: w.st, ChatID: first.User.ConversationID, Verdict: store.Up, Turn: 9},
		{Store: w.st, ChatID: "conv_nope", Verdict: store.Up},
	} {
		if _, err := session.GiveFeedback(ctx, bad); err == nil {
			t.Errorf("feedback %+v was taken", bad)
		}
	}
}

// system is what the server's request n said about the data: its system
// message and the question's user turn.
func system(t *testing.T, srv *fake.Server, n int) string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) <= n || len(reqs[n].Messages) == 0 {
		t.Fatalf("the server has %d requests, want request %d", len(reqs), n)
	}
	return agenttest.Prompt(reqs[n])
}
