package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

func TestAnAnswerIsWrittenAsItStreams(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	conv := conversation(t, s)
	p, r := ask(t, s, conv, "  Which region sells most?\nThanks ", "run_1")
	if p.User.Seq != 1 || p.Assistant.Seq != 2 || p.Assistant.ParentID != p.User.ID || p.Assistant.Status != Generating {
		t.Fatalf("pair %+v", p)
	}
	c, err := s.Conversation(ctx, conv)
	must(t, err)
	if c.Name != "Which region sells most?" || !c.Named || c.Messages != 2 {
		t.Errorf("conversation %+v", c)
	}
	must(t, r.Text(ctx, "Looking at"))
	long := strings.Repeat("row ", 1000)
	must(t, r.Call(ctx, ToolCall{Seq: 1, CallID: "c1", Step: 1, Name: "run_sql", Arguments: `{"sql":"SELECT 1"}`, Result: long, Ref: "q1", DurationMS: 3.5}))
	must(t, r.Chart(ctx, Chart{Ref: "c1", CallID: "c2", Title: "By region", Mark: "bar", Spec: json.RawMessage(`{"mark":"bar"}`),
		SQL: "SELECT 1", Data: json.RawMessage(`[{"a":1}]`), Rows: 1}))
	must(t, r.Usage(ctx, 100, 20))

	// Mid-answer, a reader sees what was said so far.
	m, err := s.Message(ctx, p.Assistant.ID)
	must(t, err)
	if m.Status != Generating || m.Content != "Looking at" || m.RunID != "run_1" || len(m.ToolCalls) != 1 || len(m.Charts) != 1 || m.PromptTokens != 100 {
		t.Fatalf("mid-answer %+v", m)
	}
	if got := m.ToolCalls[0].Result; len([]rune(got)) != MaxToolText || !strings.HasSuffix(got, "more characters]") {
		t.Errorf("result not capped: %d characters, ends %q", len([]rune(got)), got[len(got)-30:])
	}

	must(t, r.Finish(ctx, Final{Status: Complete, Content: "West sells most.", PromptTokens: 300, CompletionTokens: 50, Steps: 3,
		DurationMS: 1234, Model: "qwen3:8b", Provider: "ollama", Datasets: []string{"orders"},
		ToolCalls: []ToolCall{{Seq: 1, CallID: "c1", Step: 1, Name: "run_sql", Arguments: `{"sql":"SELECT 1"}`, Result: "[q1] 1 row"}},
		Blob:      Blob{Trace: []byte(`[1]`), Outcome: []byte(`{"x":1}`)}}))
	th, err := s.Thread(ctx, conv)
	must(t, err)
	a := th.Messages[1]
	if a.Status != Complete || a.Content != "West sells most." || a.Steps != 3 || a.Model != "qwen3:8b" || a.Datasets[0] != "orders" ||
		len(a.ToolCalls) != 1 || a.ToolCalls[0].Result != "[q1] 1 row" || len(a.Charts) != 1 || string(a.Charts[0].Data) != `[{"a":1}]` {
		t.Errorf("finished %+v", a)
	}
	b, err := s.Blobs(ctx, conv)
	must(t, err)
	if string(b[a.ID].Trace) != "[1]" || string(b[a.ID].Outcome) != `{"x":1}` {
		t.Errorf("blobs %+v", b)
	}
	if got, err := s.MessageByRun(ctx, "run_1"); err != nil || got.ID != a.ID {
		t.Errorf("by run: %v %v", got, err)
	}
	// A second question does not rename the conversation.
	ask(t, s, conv, "And by month?", "run_2")
	if c, _ := s.Conversation(ctx, conv); c.Name != "Which region sells most?" {
		t.Errorf("renamed to %q", c.Name)
	}
}

// Of many simultaneous starts of one message exactly one wins; starting a
// finished message is refused too.
func TestASecondStartOfTheSameMessageIsRefused(t *testing.T) {
	ctx := context.Background()
	path := t.TempDir() + "/" + FileName
	stores := make([]*Store, 4) // separate handles, like separate processes
	for i := range stores {
		s, err := Open(ctx, path)
		must(t, err)
		defer s.Close()
		stores[i] = s
	}
	conv := conversation(t, stores[0])
	p, err := stores[0].Ask(ctx, conv, "How many orders?")
	must(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, refused := 0, 0
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := stores[i%len(stores)].Claim(ctx, p.Assistant.ID, fmt.Sprintf("run_%d", i))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
				must(t, r.Finish(ctx, Final{Status: Complete, Content: "42"}))
			case strings.Contains(err.Error(), ErrClaimed.Error()):
				refused++
			default:
				t.Errorf("claim: %v", err)
			}
		}()
	}
	wg.Wait()
	if won != 1 || refused != 15 {
		t.Fatalf("%d claims won, %d refused; want 1 and 15", won, refused)
	}
	_, err = stores[1].Claim(ctx, p.Assistant.ID, "run_late")
	wantErr(t, err, ErrClaimed)
	_, err = stores[1].Claim(ctx, p.User.ID, "run_user")
	wantErr(t, err, ErrClaimed)
	_, err = stores[1].Claim(ctx, "msg_nope", "run_nope")
	wantErr(t, err, ErrNotFound)
}

func TestOneAnswerAtATimePerConversation(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	a, b := conversation(t, s), conversation(t, s)
	_, r := ask(t, s, a, "first", "run_a")
	_, err := s.Ask(ctx, a, "second")
	wantErr(t, err, ErrBusy)
	ask(t, s, b, "another conversation may run", "run_b")
	must(t, r.Finish(ctx, Final{Status: Interrupted, Content: "partial", Error: "stopped by the user"}))
	ask(t, s, a, "second", "run_a2")
	_, err = s.Ask(ctx, "chat_nope", "q")
	wantErr(t, err, ErrNotFound)
}

// Two conversations streaming at once through two handles on one file each
// end with exactly what they wrote.
func TestConcurrentRunsInTwoConversations(t *testing.T) {
	ctx := context.Background()
	path := t.TempDir() + "/" + FileName
	s1, err := Open(ctx, path)
	must(t, err)
	defer s1.Close()
	s2, err := Open(ctx, path)
	must(t, err)
	defer s2.Close()
	convs := []string{conversation(t, s1), conversation(t, s2)}
	var wg sync.WaitGroup
	for i, s := range []*Store{s1, s2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, r := ask(t, s, convs[i], fmt.Sprintf("question %d", i), fmt.Sprintf("run_%d", i))
			var text strings.Builder
			for j := range 200 {
				fmt.Fprintf(&text, "w%d.%d ", i, j)
				if err := r.Text(ctx, text.String()); err != nil {
					t.Error(err)
					return
				}
				if j%10 == 9 {
					if err := r.Call(ctx, ToolCall{Seq: j/10 + 1, CallID: fmt.Sprint(j), Name: "run_sql", Arguments: "{}", Result: fmt.Sprint(i)}); err != nil {
						t.Error(err)
						return
					}
				}
			}
			if err := r.Finish(ctx, Final{Status: Complete, Content: text.String()}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i, conv := range convs {
		th, err := s1.Thread(ctx, conv)
		must(t, err)
		a := th.Messages[1]
		if a.Status != Complete || !strings.HasPrefix(a.Content, fmt.Sprintf("w%d.0 ", i)) || !strings.HasSuffix(a.Content, fmt.Sprintf("w%d.199 ", i)) || len(a.ToolCalls) != 20 {
			t.Errorf("conversation %d: %s, %d calls, %q…", i, a.Status, len(a.ToolCalls), a.Content[:20])
		}
		for _, c := range a.ToolCalls {
			if c.Result != fmt.Sprint(i) {
				t.Errorf("conversation %d holds a call of the other", i)
			}
		}
	}
}

// setOwner makes message id look held by o until lease.
func setOwner(t *testing.T, s *Store, id, o string, lease int64) {
	t.Helper()
	_, err := s.db.Exec(`UPDATE messages SET owner = ?, lease_until = ? WHERE id = ?`, o, lease, id)
	must(t, err)
}

func TestRecoverInterruptsOnlyAnswersOfGoneProcesses(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	future := s.stamp() + leaseFor.Milliseconds()
	cases := []struct {
		name, owner string
		lease       int64
		interrupted bool
	}{
		{"a process that is gone", "999999999/0badc0ffee00", future, true},
		{"a live process", fmt.Sprintf("%d/other", os.Getppid()), future, false},
		{"a live pid whose lease ran out (reused id)", fmt.Sprintf("%d/other", os.Getppid()), s.stamp() - 1, true},
		{"this process", self.String(), future, false},
		{"no owner", "", future, true},
	}
	ids := map[string]string{}
	for _, c := range cases {
		conv := conversation(t, s)
		p, r := ask(t, s, conv, c.name, "run_"+strings.ReplaceAll(c.name, " ", "_"))
		must(t, r.Text(ctx, "partial "+c.name))
		must(t, r.Call(ctx, ToolCall{Seq: 1, CallID: "c1", Name: "run_sql", Arguments: `{"sql":"SELECT 1"}`, Result: "1 row"}))
		close(r.stop) // no renewal: the test sets the lease
		setOwner(t, s, p.Assistant.ID, c.owner, c.lease)
		ids[c.name] = p.Assistant.ID
	}
	got, err := s.Recover(ctx)
	must(t, err)
	if len(got) != 3 {
		t.Errorf("recovered %d answers, want 3", len(got))
	}
	for _, c := range cases {
		m, err := s.Message(ctx, ids[c.name])
		must(t, err)
		want := Generating
		if c.interrupted {
			want = Interrupted
		}
		if m.Status != want || m.Content != "partial "+c.name || len(m.ToolCalls) != 1 {
			t.Errorf("%s: %s %q with %d calls, want %s with its partial text and call", c.name, m.Status, m.Content, len(m.ToolCalls), want)
		}
		if c.interrupted && m.Error != interruptedReason {
			t.Errorf("%s: error %q", c.name, m.Error)
		}
	}
}

func TestRetry(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	conv := conversation(t, s)
	p, r := ask(t, s, conv, "How many orders?", "run_1")
	must(t, r.Text(ctx, "There are"))
	_, err := s.Retry(ctx, p.Assistant.ID)
	wantErr(t, err, ErrNotRetryable) // still generating
	must(t, r.Finish(ctx, Final{Status: Interrupted, Content: "There are", Error: "stopped"}))
	again, err := s.Retry(ctx, p.Assistant.ID)
	must(t, err)
	if again.User.ID != p.User.ID || again.Assistant.ParentID != p.User.ID || again.Assistant.Seq != 3 {
		t.Fatalf("retry %+v", again)
	}
	_, err = s.Retry(ctx, p.Assistant.ID)
	wantErr(t, err, ErrBusy) // the retry is waiting to be claimed
	r2, err := s.Claim(ctx, again.Assistant.ID, "run_2")
	must(t, err)
	must(t, r2.Finish(ctx, Final{Status: Complete, Content: "There are 42."}))
	_, err = s.Retry(ctx, again.Assistant.ID)
	wantErr(t, err, ErrNotRetryable)
	_, err = s.Retry(ctx, p.User.ID)
	wantErr(t, err, ErrNotRetryable)
	th, err := s.Thread(ctx, conv)
	must(t, err)
	if len(th.Messages) != 3 || th.Messages[1].Content != "There are" || th.Messages[1].Status != Interrupted {
		t.Errorf("the interrupted answer was not kept: %+v", th.Messages)
	}
}

func TestRenameDeleteAndOrder(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	a, b := conversation(t, s), conversation(t, s)
	must(t, s.Rename(ctx, a, "  Mine "))
	_, r := ask(t, s, a, "first question", "run_1")
	must(t, r.Finish(ctx, Final{Status: Complete, Content: "x"}))
	list, err := s.Conversations(ctx)
	must(t, err)
	if len(list) != 2 || list[0].ID != a || list[0].Name != "Mine" || list[1].ID != b || list[1].Name != DefaultName {
		t.Fatalf("list %+v", list)
	}
	rep, err := s.SaveReport(ctx, r.MessageID, "T", "# T", nil)
	must(t, err)
	must(t, s.Delete(ctx, a))
	wantErr(t, s.Delete(ctx, a), ErrNotFound)
	wantErr(t, s.Rename(ctx, a, "x"), ErrNotFound)
	_, err = s.Message(ctx, r.MessageID)
	wantErr(t, err, ErrNotFound)
	wantErr(t, s.RecordExport(ctx, rep.ID, "md", "/x"), ErrNotFound)
	var left int
	must(t, s.db.QueryRow(`SELECT (SELECT count(*) FROM messages) + (SELECT count(*) FROM tool_calls) + (SELECT count(*) FROM reports)`).Scan(&left))
	if left != 0 {
		t.Errorf("%d rows of the deleted conversation left", left)
	}
}

func TestReportsKeepTheirExportHistory(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	conv := conversation(t, s)
	_, r := ask(t, s, conv, "q", "run_1")
	must(t, r.Finish(ctx, Final{Status: Complete, Content: "a"}))
	first, err := s.SaveReport(ctx, r.MessageID, "First", "# First", []byte(`{"v":1}`))
	must(t, err)
	second, err := s.SaveReport(ctx, r.MessageID, "Second", "# Second", []byte(`{"v":2}`))
	must(t, err)
	must(t, s.RecordExport(ctx, first.ID, "md", "/out/a"))
	must(t, s.RecordExport(ctx, first.ID, "html", "/out/b/report.html"))
	reps, err := s.Reports(ctx, conv)
	must(t, err)
	if len(reps) != 2 || reps[0].ID != second.ID || string(reps[1].Source) != `{"v":1}` || len(reps[1].Exports) != 2 ||
		reps[1].Exports[1].Format != "html" || len(reps[0].Exports) != 0 {
		t.Errorf("reports %+v", reps)
	}
}

func TestCapAndName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"short", "short"},
		{strings.Repeat("é", 30), strings.Repeat("é", 2) + "… [28 more characters]"},
		{strings.Repeat("x", 1000), strings.Repeat("x", 1) + "… [999 more characters]"},
	} {
		if got := Cap(c.in, 24); got != c.want {
			t.Errorf("Cap(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := NameFrom("  Which region has the most orders in the last twelve months, by channel?\nthanks"); got != "Which region has the most orders in the last twelve months,…" && got != "Which region has the most orders in the last twelve months…" {
		t.Errorf("NameFrom = %q", got)
	}
}

// A run whose conversation is deleted under it writes nothing and learns
// at Finish that its answer is gone.
func TestWritesIntoADeletedConversation(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	conv := conversation(t, s)
	_, r := ask(t, s, conv, "q", "run_1")
	must(t, s.Delete(ctx, conv))
	must(t, r.Text(ctx, "late text"))
	must(t, r.Call(ctx, ToolCall{Seq: 1, CallID: "c1", Name: "run_sql", Arguments: "{}", Result: "x"}))
	must(t, r.Chart(ctx, Chart{Ref: "c1", Spec: json.RawMessage(`{}`)}))
	wantErr(t, r.Finish(ctx, Final{Status: Complete, Content: "late"}), ErrNotFound)
	var n int
	must(t, s.db.QueryRow(`SELECT (SELECT count(*) FROM tool_calls) + (SELECT count(*) FROM charts) + (SELECT count(*) FROM messages)`).Scan(&n))
	if n != 0 {
		t.Errorf("%d rows written into a deleted conversation", n)
	}
}

func TestMessagesLeavesOutCallsAndCharts(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	conv := conversation(t, s)
	_, r := ask(t, s, conv, "q", "run_1")
	must(t, r.Call(ctx, ToolCall{Seq: 1, CallID: "c1", Name: "run_sql", Arguments: "{}", Result: "x"}))
	must(t, r.Finish(ctx, Final{Status: Complete, Content: "a"}))
	light, err := s.Messages(ctx, conv)
	must(t, err)
	whole, err := s.Thread(ctx, conv)
	must(t, err)
	if len(light.Messages) != 2 || light.Messages[1].Content != "a" || light.Messages[1].ToolCalls != nil || len(whole.Messages[1].ToolCalls) != 1 {
		t.Errorf("messages %+v, thread %+v", light.Messages, whole.Messages)
	}
}
