package app_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/app"
)

const regionSQL = "SELECT region, count(*) AS orders FROM orders GROUP BY region ORDER BY orders DESC"

// answerTurns explore with one query and answer in many small chunks.
func answerTurns() []fake.Turn {
	return []fake.Turn{
		fake.Calls(call("run_sql", map[string]any{"sql": regionSQL, "purpose": "orders by region"})),
		{Content: "West has the most orders.\n\nFindings:\n- West leads on order count [q1]", Chunks: 40, ChunkDelay: 2 * time.Millisecond},
	}
}

func TestAskStreamsBatchedEventsEndingInRunFinished(t *testing.T) {
	e := newEnv(t, setup{turns: answerTurns()})
	e.load(t)
	chat := e.chat(t)
	res, err := e.app.Ask(chat, "  Which region has the most orders?\nThanks ")
	if err != nil {
		t.Fatal(err)
	}
	out := e.rec.waitFinished(t, res.RunID, 20*time.Second)
	if out.Status != agent.Done || out.Summary != "West has the most orders." {
		t.Fatalf("outcome %s %q %q", out.Status, out.Summary, out.Reason)
	}
	batches := e.rec.batches(res.RunID)
	var all []agent.Event
	for i, b := range batches {
		if b.ChatID != chat || len(b.Events) == 0 {
			t.Errorf("batch %d: chat %q, %d events", i, b.ChatID, len(b.Events))
		}
		for j, ev := range b.Events {
			if j > 0 && ev.Type == agent.TextDelta && b.Events[j-1].Type == agent.TextDelta && b.Events[j-1].Step == ev.Step {
				t.Errorf("batch %d: consecutive text deltas %d and %d were not merged", i, j-1, j)
			}
			if ev.Type == agent.RunFinished && i != len(batches)-1 {
				t.Errorf("run_finished in batch %d of %d", i, len(batches))
			}
		}
		all = append(all, b.Events...)
	}
	if all[0].Type != agent.RunStarted || all[len(all)-1].Type != agent.RunFinished {
		t.Errorf("events from %s to %s", all[0].Type, all[len(all)-1].Type)
	}
	var text strings.Builder
	deltas, finished := 0, 0
	for _, ev := range all {
		switch ev.Type {
		case agent.TextDelta:
			deltas++
			text.WriteString(ev.Text)
		case agent.RunFinished:
			finished++
		}
	}
	if finished != 1 || deltas >= 40 || !strings.Contains(text.String(), "West leads on order count") {
		t.Errorf("%d run_finished, %d text deltas for 40 chunks, text %q", finished, deltas, text.String())
	}
	// At most 20 batches a second: the gaps between batches (all but the
	// final flush) are at least 50 ms.
	var times []time.Time
	e.rec.mu.Lock()
	for _, p := range e.rec.events {
		if p.name == app.EventRunEvents {
			times = append(times, p.at)
		}
	}
	e.rec.mu.Unlock()
	for i := 1; i < len(times)-1; i++ {
		if gap := times[i].Sub(times[i-1]); gap < 45*time.Millisecond {
			t.Errorf("batches %d and %d only %s apart", i-1, i, gap)
		}
	}

	c, err := e.app.GetChat(chat)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "Which region has the most orders?" || len(c.Turns) != 1 {
		t.Fatalf("chat %q with %d turns", c.Name, len(c.Turns))
	}
	turn := c.Turns[0]
	if turn.Question != "Which region has the most orders?\nThanks" || turn.RunID != res.RunID ||
		turn.Outcome == nil || turn.Outcome.Status != agent.Done || len(turn.Events) != len(all) {
		t.Errorf("turn %q run %s outcome %v, %d events (streamed %d)", turn.Question, turn.RunID, turn.Outcome != nil, len(turn.Events), len(all))
	}
	// The agent's table is paged like a console result.
	var ref string
	for _, ev := range all {
		if ev.Type == agent.ToolResult && ev.Result.Display.Table != nil {
			ref = ev.Result.Display.Table.Ref
		}
	}
	if p, err := e.app.Page(ref, 0, 10); err != nil || len(p.Rows) != 4 {
		t.Errorf("page the agent's table %q: %v %v", ref, p, err)
	}
	list, _ := e.app.ListChats()
	if len(list) != 1 || list[0].ID != chat {
		t.Errorf("chats %+v", list)
	}
}

func TestOneRunPerChatAndCancel(t *testing.T) {
	// The model never answers until the client gives up.
	e := newEnv(t, setup{respond: func(fake.Request) fake.Turn { return fake.Failing(fake.HangAfter(0)) }})
	chat := e.chat(t)
	first, err := e.app.Ask(chat, "How many orders?")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.app.Ask(chat, "And customers?"); codeOf(t, err) != app.CodeBusy {
		t.Fatalf("second ask while running: %v, want busy", err)
	}
	other := e.chat(t)
	second, err := e.app.Ask(other, "Another chat may run")
	if err != nil {
		t.Fatalf("another chat is not busy: %v", err)
	}
	time.Sleep(200 * time.Millisecond) // let the run reach the model
	start := time.Now()
	if err := e.app.Cancel(first.RunID); err != nil {
		t.Fatal(err)
	}
	out := e.rec.waitFinished(t, first.RunID, 5*time.Second)
	if took := time.Since(start); took > time.Second {
		t.Errorf("cancel took %s", took)
	}
	if out.Status != agent.Canceled {
		t.Errorf("status %s, want canceled", out.Status)
	}
	if err := e.app.Cancel(first.RunID); err != nil {
		t.Errorf("canceling a finished run: %v", err)
	}
	if err := e.app.Cancel("run_unknown"); err != nil {
		t.Errorf("canceling an unknown run: %v", err)
	}
	// The chat is free again.
	third, err := e.app.Ask(chat, "How many orders, again?")
	if err != nil {
		t.Fatalf("ask after cancel: %v", err)
	}
	// Deleting a chat stops its run.
	if err := e.app.DeleteChat(other); err != nil {
		t.Fatal(err)
	}
	if out := e.rec.waitFinished(t, second.RunID, 2*time.Second); out.Status != agent.Canceled {
		t.Errorf("deleted chat's run: %s", out.Status)
	}
	if _, err := e.app.GetChat(other); codeOf(t, err) != app.CodeNotFound {
		t.Errorf("deleted chat: %v", err)
	}
	// Shutdown cancels what is left.
	e.app.Shutdown(context.Background())
	if out := e.rec.waitFinished(t, third.RunID, 2*time.Second); out.Status != agent.Canceled {
		t.Errorf("run after shutdown: %s", out.Status)
	}
	if _, err := e.app.Ask(chat, "after shutdown"); codeOf(t, err) != app.CodeCanceled {
		t.Errorf("ask after shutdown: %v", err)
	}
}

func TestClarificationThenFollowUpCarriesHistory(t *testing.T) {
	e := newEnv(t, setup{turns: []fake.Turn{
		fake.Calls(call("ask_user", map[string]any{
			"question": "Orders of which status?",
			"options":  []string{"shipped", "pending"},
		})),
		fake.Calls(call("run_sql", map[string]any{"sql": "SELECT count(*) AS n FROM orders WHERE status = 'shipped'"})),
		fake.Text("There are shipped orders.\n\nFindings:\n- Shipped orders counted [q1]"),
	}})
	e.load(t)
	chat := e.chat(t)
	first, err := e.app.Ask(chat, "How many orders?")
	if err != nil {
		t.Fatal(err)
	}
	out := e.rec.waitFinished(t, first.RunID, 20*time.Second)
	if out.Status != agent.NeedsInput || out.Question == nil || out.Question.Text != "Orders of which status?" {
		t.Fatalf("first run: %s %+v", out.Status, out.Question)
	}
	second, err := e.app.Ask(chat, "shipped")
	if err != nil {
		t.Fatal(err)
	}
	if out := e.rec.waitFinished(t, second.RunID, 20*time.Second); out.Status != agent.Done {
		t.Fatalf("follow-up: %s %s", out.Status, out.Reason)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	// The follow-up's first call shows the model the whole conversation:
	// the question, the agent's clarifying question (the ask_user call, as
	// it was sent), and the answer to it.
	var users []string
	asked := false
	for _, m := range reqs[1].Messages {
		if m.Role == llm.User {
			users = append(users, agent.UserWords(m.Content))
		}
		for _, c := range m.ToolCalls {
			if m.Role == llm.Assistant && c.Name == "ask_user" && strings.Contains(string(c.Arguments), "Orders of which status?") {
				asked = true
			}
		}
	}
	if len(users) != 2 || users[0] != "How many orders?" || users[1] != "shipped" || !asked {
		t.Errorf("follow-up history: users %q, the agent's question present %v", users, asked)
	}
	c, _ := e.app.GetChat(chat)
	if len(c.Turns) != 2 || c.Name != "How many orders?" {
		t.Errorf("chat %q with %d turns", c.Name, len(c.Turns))
	}
}

func TestAskNeedsAModel(t *testing.T) {
	e := newEnv(t, setup{model: "-"})
	chat := e.chat(t)
	if _, err := e.app.Ask(chat, "anything"); codeOf(t, err) != app.CodeNoModel {
		t.Errorf("no model: %v", err)
	}
	if _, err := e.app.Ask(chat, " "); codeOf(t, err) != app.CodeInvalid {
		t.Errorf("empty question: %v", err)
	}
	e2 := newEnv(t, setup{})
	if _, err := e2.app.Ask("chat_nope", "anything"); codeOf(t, err) != app.CodeNotFound {
		t.Errorf("unknown chat: %v", err)
	}
}

func TestUnreachableModelFailsTheRunNotTheCall(t *testing.T) {
	e := newEnv(t, setup{})
	e.srv.Close() // nothing listens any more
	chat := e.chat(t)
	res, err := e.app.Ask(chat, "anything")
	if err != nil {
		t.Fatal(err)
	}
	out := e.rec.waitFinished(t, res.RunID, 30*time.Second)
	if out.Status != agent.Failed || out.Reason == "" {
		t.Errorf("status %s reason %q", out.Status, out.Reason)
	}
}

// useEmbedModel saves model as the semantic boost's embedding model in
// the settings.
func (e *env) useEmbedModel(t *testing.T, model string) {
	t.Helper()
	s, err := e.app.GetSettings()
	if err != nil {
		t.Fatal(err)
	}
	s.EmbedModel = model
	if err := e.app.SaveSettings(app.SettingsUpdate{Settings: *s}); err != nil {
		t.Fatal(err)
	}
}

// With an embedding model in the settings, the run's tables are ranked
// with its embeddings too (the fake server's /api/embed), and the run's
// metadata says so.
func TestAskUsesTheEmbeddingModelOfTheSettings(t *testing.T) {
	e := newEnv(t, setup{turns: append(answerTurns(), answerTurns()...)})
	e.load(t)
	e.useEmbedModel(t, "nomic-embed-text")
	res, err := e.app.Ask(e.chat(t), "Which region has the most orders?")
	if err != nil {
		t.Fatal(err)
	}
	out := e.rec.waitFinished(t, res.RunID, 20*time.Second)
	if out.Status != agent.Done || e.srv.Embedded() == 0 {
		t.Fatalf("outcome %s %q; %d embedding calls", out.Status, out.Reason, e.srv.Embedded())
	}
	if want := "tables ranked by text and by nomic-embed-text embeddings"; !slices.Contains(out.Meta.Notes, want) {
		t.Errorf("notes %q, want %q", out.Meta.Notes, want)
	}
}

// At the masked level the embedding model is told the question as the
// chat model is, private values masked, and so are search_schema's
// queries, whose placeholders the gate puts back before the tool runs:
// before, the question and the query reached the embedding model (which
// may be a hosted one) with the customer's name in them.
func TestMaskedLevelMasksWhatTheEmbeddingModelIsTold(t *testing.T) {
	placeholder := regexp.MustCompile(`<[a-z_]+_\d+>`)
	asked := false
	e := newEnv(t, setup{respond: func(r fake.Request) fake.Turn {
		if asked {
			return fake.Text("Globex placed a few orders.")
		}
		asked = true
		var ph string
		for _, m := range r.Messages {
			if m.Role == llm.User {
				ph = placeholder.FindString(m.Content)
			}
		}
		return fake.Calls(call("search_schema", map[string]any{"query": "orders of " + ph}))
	}})
	e.load(t)
	if _, err := e.app.SetPrivateColumn("customers", "customer_name", true); err != nil {
		t.Fatal(err)
	}
	if err := e.app.SetPrivacy("masked"); err != nil {
		t.Fatal(err)
	}
	e.useEmbedModel(t, "nomic-embed-text")
	res, err := e.app.Ask(e.chat(t), "How many orders did Globex place?")
	if err != nil {
		t.Fatal(err)
	}
	if out := e.rec.waitFinished(t, res.RunID, 20*time.Second); out.Status != agent.Done {
		t.Fatalf("run: %s %q", out.Status, out.Reason)
	}
	var question, query bool
	for _, text := range e.srv.EmbeddedTexts() {
		if strings.Contains(text, "Globex") {
			t.Errorf("the embedding model was told %q", text)
		}
		question = question || strings.HasPrefix(text, "How many orders did <") && placeholder.MatchString(text)
		query = query || strings.HasPrefix(text, "orders of <") && placeholder.MatchString(text)
	}
	if !question || !query {
		t.Errorf("the masked question (%v) or search_schema's masked query (%v) was not embedded: %q", question, query, e.srv.EmbeddedTexts())
	}
}
