package agent

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/calls"
	"github.com/loupeapp/loupe/agent/llm"
)

const sql2024 = "SELECT month, sum(amount) AS revenue FROM orders WHERE year = 2024 GROUP BY month ORDER BY month"

// turn is a question and a complete answer that ran one query.
func turn(q, sql, answer string) []Past {
	return []Past{
		{Role: llm.User, Content: q, Status: "complete"},
		{Role: llm.Assistant, Content: answer, Status: "complete", Calls: []PastCall{
			{Name: "run_sql", Arguments: fmt.Sprintf(`{"sql":%q,"purpose":"revenue by month"}`, sql), Result: "[q1] 12 rows\n| month | revenue |\n| 1 | 100 |"},
		}},
	}
}

func TestHistoryShowsTheEarlierQuestionAndItsSQL(t *testing.T) {
	past := turn("Revenue by month in 2024?", sql2024, "Revenue peaked in December.\n\nFindings:\n- December highest [q1]")
	h := History(past, HistoryOptions{})
	if len(h) != 2 || h[0].Role != llm.User || h[0].Content != "Revenue by month in 2024?" || h[1].Role != llm.Assistant {
		t.Fatalf("history %+v", h)
	}
	a := h[1].Content
	for _, want := range []string{"[Tools used for this answer]", `run_sql sql="` + sql2024 + `"`, "→ [q1] 12 rows | month | revenue |", "[Answer]\nRevenue peaked in December."} {
		if !strings.Contains(a, want) {
			t.Errorf("answer lacks %q:\n%s", want, a)
		}
	}
	for _, m := range h {
		if len(m.ToolCalls) > 0 || m.Role == llm.Tool {
			t.Errorf("history must hold text only, not native calls: %+v", m)
		}
		// A model on the text protocol must not have the note read as a call.
		if found, _ := calls.Extract(m.Content, func(string) bool { return true }); len(found) > 0 {
			t.Errorf("the history reads as tool calls %+v:\n%s", found, m.Content)
		}
	}
}

func TestHistoryCutsToolArgumentsAndResults(t *testing.T) {
	long := "SELECT " + strings.Repeat("a_long_column_name, ", 40) + "1 FROM t"
	past := []Past{
		{Role: llm.User, Content: "q"},
		{Role: llm.Assistant, Content: "a", Status: "complete", Calls: []PastCall{
			{Name: "run_sql", Arguments: fmt.Sprintf(`{"sql":%q}`, long), Result: strings.Repeat("x", 3000)},
			{Name: "run_sql", Arguments: `{"sql":"SELEC"}`, Result: "Parser Error", Failed: true},
			{Name: "run_sql", Arguments: `{"sql":"SELECT 2"}`, Result: "not run: the run was stopped", Skipped: true},
		}},
	}
	a := History(past, HistoryOptions{})[1].Content
	lines := strings.Split(a, "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[1], "1. run_sql") || !strings.HasPrefix(lines[2], "2. run_sql") {
		t.Fatalf("answer:\n%s", a)
	}
	args, result, _ := strings.Cut(strings.TrimPrefix(lines[1], "1. run_sql "), " → ")
	if n := len([]rune(args)); n != DefaultCallChars {
		t.Errorf("arguments cut to %d characters, want %d", n, DefaultCallChars)
	}
	if n := len([]rune(result)); n != DefaultCallChars {
		t.Errorf("result cut to %d characters, want %d", n, DefaultCallChars)
	}
	if !strings.Contains(lines[2], "→ failed: Parser Error") || strings.Contains(a, "SELECT 2") {
		t.Errorf("failed call shown, skipped call left out:\n%s", a)
	}
}

// Within its budget the history shows every turn in detail, so that what
// was sent for one follow-up is sent again as it was for the next; once
// over it (compact), the older turns are summarized and the last ten
// messages stay in detail.
func TestHistoryKeepsTheLastTenMessagesInDetail(t *testing.T) {
	var past []Past
	for i := range 8 {
		past = append(past, turn(fmt.Sprintf("question %d, in my own words", i), fmt.Sprintf("SELECT %d", i), fmt.Sprintf("Answer %d. More detail follows here.", i))...)
	}
	whole := History(past, HistoryOptions{MaxTokens: 100_000})
	if len(whole) != 16 {
		t.Fatalf("%d messages, want 16", len(whole))
	}
	for i, m := range whole {
		if m.Role == llm.Assistant && !strings.Contains(m.Content, fmt.Sprintf(`sql="SELECT %d"`, i/2)) {
			t.Errorf("message %d should be in detail within the budget: %q", i, m.Content)
		}
	}
	o := HistoryOptions{Recent: DefaultRecentMessages, CallChars: DefaultCallChars}
	h, _ := compact(past, o, estimateMessages(whole))
	if len(h) != 16 {
		t.Fatalf("%d messages, want 16", len(h))
	}
	for i, m := range h {
		q := i / 2
		switch {
		case m.Role == llm.User && m.Content != fmt.Sprintf("question %d, in my own words", q):
			t.Errorf("message %d: the user's words changed: %q", i, m.Content)
		case m.Role == llm.Assistant && i < 6 && !strings.HasPrefix(m.Content, "[Earlier answer, summarized] Answer") ||
			m.Role == llm.Assistant && i < 6 && !strings.Contains(m.Content, fmt.Sprintf("Last query: SELECT %d", q)):
			t.Errorf("message %d should be summarized with its query: %q", i, m.Content)
		case m.Role == llm.Assistant && i >= 6 && !strings.Contains(m.Content, fmt.Sprintf(`sql="SELECT %d"`, q)):
			t.Errorf("message %d should be in detail: %q", i, m.Content)
		}
	}
	// An odd window starts at a question, never at its answer.
	o.Recent = 3
	h, _ = compact(past[1:], o, estimateMessages(whole))
	if !strings.Contains(h[len(h)-4].Content, "question 6") || !strings.Contains(h[len(h)-3].Content, "[Tools used") {
		t.Errorf("window: %q / %q", h[len(h)-4].Content, h[len(h)-3].Content)
	}
}

// sentTurn is a question and a complete answer whose run is kept as it
// was sent: the question's user turn with its data, a native call and its
// result, the answer.
func sentTurn(i int, result string) []Past {
	q := fmt.Sprintf("question %d", i)
	id := fmt.Sprintf("call_%d", i)
	sent := []llm.Message{
		{Role: llm.User, Content: dataHeading + " (DuckDB SQL)\nTable t — 1 rows" + questionMark + q},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "run_sql", Arguments: []byte(`{"sql":"SELECT 1"}`)}}},
		{Role: llm.Tool, ToolCallID: id, Name: "run_sql", Content: result},
		{Role: llm.Assistant, Content: fmt.Sprintf("Answer %d.", i)},
	}
	return []Past{
		{Role: llm.User, Content: q},
		{Role: llm.Assistant, Content: fmt.Sprintf("Answer %d.", i), Status: "complete", Sent: sent,
			Calls: []PastCall{{Name: "run_sql", Arguments: `{"sql":"SELECT 1"}`, Result: result}}},
	}
}

// A run kept as it was sent is replayed as it was sent, native calls
// and all, and only when it is the answer to the question before it.
func TestHistoryReplaysWhatWasSent(t *testing.T) {
	past := sentTurn(1, "[q1] 1 row")
	h := History(past, HistoryOptions{})
	if len(h) != 4 || h[0].Content != past[1].Sent[0].Content || len(h[1].ToolCalls) != 1 || h[2].Role != llm.Tool || h[3].Content != "Answer 1." {
		t.Fatalf("history %+v, want the run as sent", h)
	}
	past[0].Content = "another question"
	if h := History(past, HistoryOptions{}); len(h) != 2 || h[0].Content != "another question" {
		t.Errorf("a run that is not the answer to the question before it must not be replayed: %+v", h)
	}
	failed := sentTurn(2, "x")
	failed[1].Status = "failed"
	if h := History(failed, HistoryOptions{}); len(h) != 2 || len(h[1].ToolCalls) != 0 {
		t.Errorf("a failed run is told in text, not replayed: %+v", h)
	}
}

// Each follow-up's history starts with the one before it and the turn
// that followed, word for word, except when it had to be compacted: then
// it keeps what was compacted before. Over a long conversation most
// follow-ups are served from the prefix a model server has cached.
func TestHistoryKeepsThePrefixAlreadySent(t *testing.T) {
	var past []Past
	for i := range 60 {
		past = append(past, sentTurn(i, strings.Repeat(fmt.Sprintf("row %d ", i), 40))...)
	}
	const budget = 3_000
	extended, compacted, kept := 0, 0, 0
	prev := History(nil, HistoryOptions{MaxTokens: budget})
	for n := 2; n <= len(past); n += 2 {
		h := History(past[:n], HistoryOptions{MaxTokens: budget})
		if est := estimateMessages(h); est > budget {
			t.Fatalf("%d messages: %d tokens over the budget %d", n, est, budget)
		}
		if isPrefix(prev, h) {
			extended++
		} else {
			compacted++
			if len(prev) > 0 && len(h) > 0 && h[0].Content == prev[0].Content {
				kept++
			}
		}
		prev = h
	}
	t.Logf("%d follow-ups extend the history, %d compacted (%d keeping its start)", extended, compacted, kept)
	if share := float64(extended) / float64(extended+compacted); share < 0.8 {
		t.Errorf("%d of %d follow-ups extend the history sent before (%.2f), want >= 0.8", extended, extended+compacted, share)
	}
	if compacted == 0 || kept == 0 {
		t.Errorf("%d compactions, %d of them keeping the start of what was compacted before; want some of both", compacted, kept)
	}
}

// isPrefix reports whether every message of a is the message at the same
// place in b.
func isPrefix(a, b []llm.Message) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if fmt.Sprint(a[i]) != fmt.Sprint(b[i]) {
			return false
		}
	}
	return true
}

func TestHistoryStatuses(t *testing.T) {
	past := []Past{
		{Role: llm.User, Content: "Top customers?"},
		{Role: llm.Assistant, Content: "By revenue or by order count?", Status: "needs_input", Calls: []PastCall{{Name: "ask_user", Arguments: `{"question":"By revenue or by order count?"}`, Result: "Asked."}}},
		{Role: llm.User, Content: "revenue"},
		{Role: llm.Assistant, Content: "Acme leads with", Status: "interrupted", Error: "stopped by the user"},
		{Role: llm.User, Content: "again please"},
		{Role: llm.Assistant, Status: "failed", Error: "the model server did not answer"},
		{Role: llm.User, Content: "and now?"},
		{Role: llm.Assistant, Content: "partial", Status: "generating"},
	}
	h := History(past, HistoryOptions{})
	if len(h) != 7 {
		t.Fatalf("%d messages (the answer still generating is left out): %+v", len(h), h)
	}
	for i, want := range map[int]string{1: "[I asked the user:]\nBy revenue or by order count?", 3: "[This answer was interrupted before it finished: stopped by the user]\nAcme leads with", 5: "[This answer failed: the model server did not answer]"} {
		if !strings.HasSuffix(h[i].Content, want) {
			t.Errorf("message %d: %q, want it to end %q", i, h[i].Content, want)
		}
	}
}

// A long conversation is compacted into its budget, keeping the recent
// turns and the user's words as long as they fit.
func TestHistoryCompactsALongConversation(t *testing.T) {
	var past []Past
	for i := range 100 {
		past = append(past, turn(fmt.Sprintf("question %d about revenue", i), fmt.Sprintf("SELECT %d, region FROM orders", i), strings.Repeat(fmt.Sprintf("Answer %d is long. ", i), 60))...)
	}
	full := History(past, HistoryOptions{MaxTokens: 1 << 30})
	for _, budget := range []int{8_000, 3_000, 1_000, 300} {
		h := History(past, HistoryOptions{MaxTokens: budget})
		if est := estimateMessages(h); est > budget {
			t.Errorf("budget %d: estimate %d", budget, est)
		}
		last := h[len(h)-2:]
		if last[0].Content != "question 99 about revenue" || !strings.Contains(last[1].Content, `sql="SELECT 99, region FROM orders"`) {
			t.Errorf("budget %d: the last turn must stay in detail: %+v", budget, last)
		}
		joined := ""
		for _, m := range h {
			joined += m.Content + "\n"
		}
		if budget >= 3_000 && !strings.Contains(joined, "question 0 about revenue") {
			t.Errorf("budget %d: the first question was dropped", budget)
		}
		if budget < 3_000 && !strings.Contains(joined, "left out") {
			t.Errorf("budget %d: dropping must be said", budget)
		}
	}
	if estimateMessages(full) < 8_000 {
		t.Fatalf("the uncompacted history (%d tokens) should exceed the budgets tested", estimateMessages(full))
	}
}

// The history goes through the run's own compaction (fit) intact: fit's
// estimate is the one History uses, and the history stays text.
func TestHistoryWithFit(t *testing.T) {
	var past []Past
	for i := range 30 {
		past = append(past, turn(fmt.Sprintf("q%d", i), "SELECT 1", strings.Repeat("long answer ", 100))...)
	}
	limit := 8192
	h := History(past, HistoryOptions{MaxTokens: HistoryBudget(limit)})
	msgs := append([]llm.Message{{Role: llm.System, Content: strings.Repeat("system ", 500)}}, h...)
	first := len(msgs)
	msgs = append(msgs, llm.Message{Role: llm.User, Content: "same but for 2023"})
	out, n := fit(msgs, first, limit)
	if n != 0 || estimateMessages(out) > int(float64(limit)*promptShare) {
		t.Errorf("a budgeted history should fit without more compaction: %d changed, %d tokens", n, estimateMessages(out))
	}
	if HistoryBudget(0) != DefaultHistoryTokens || HistoryBudget(8192) != 2048 {
		t.Errorf("budgets %d %d", HistoryBudget(0), HistoryBudget(8192))
	}
}
