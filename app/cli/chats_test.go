package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/agenttest"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/data/store"
)

const revenue2024 = "SELECT month, sum(amount) AS revenue FROM sales WHERE year = 2024 GROUP BY month ORDER BY month"

// salesWorkspace holds sales by year, month and region.
func salesWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	csv := writeFile(t, t.TempDir(), "sales.csv", "year,month,region,amount\n2023,1,north,10\n2023,2,south,20\n2023,2,north,5\n2024,1,north,100\n2024,2,south,200\n")
	if code, _, errs := run(t, "", "load", "--workspace", ws, csv); code != ExitOK {
		t.Fatalf("load: %s", errs)
	}
	return ws
}

var shownSQL = regexp.MustCompile(`sql=("(?:[^"\\]|\\.)*")`)

// resolvingModel answers like a model that resolves follow-ups from the
// history it is shown, and from nothing else: "same but for 2023" reruns
// the last query it sees there for 2023, "now by region" regroups it. A
// result comes back as an answer quoting it.
func resolvingModel(r fake.Request) fake.Turn {
	last := r.Last()
	if last.Role == llm.Tool {
		return fake.Text("Here it is: " + strings.Join(strings.Fields(last.Content), " ") + "\n\nFindings:\n- As queried [q1]")
	}
	prev := ""
	for _, m := range r.Messages[:len(r.Messages)-1] {
		if m.Role == llm.Assistant {
			for _, s := range shownSQL.FindAllStringSubmatch(m.Content, -1) {
				prev, _ = strconv.Unquote(s[1])
			}
			for _, c := range m.ToolCalls { // an earlier run, replayed as it was sent
				var args struct{ SQL string }
				if json.Unmarshal(c.Arguments, &args) == nil && args.SQL != "" {
					prev = args.SQL
				}
			}
		}
	}
	var sql string
	switch q := agent.UserWords(last.Content); {
	case strings.Contains(q, "2024"):
		sql = revenue2024
	case q == "same but for 2023" && prev != "":
		sql = strings.ReplaceAll(prev, "2024", "2023")
	case q == "now by region" && prev != "":
		sql = strings.ReplaceAll(prev, "month", "region")
	default:
		return fake.Text("I cannot tell what you refer to.")
	}
	b, _ := json.Marshal(map[string]string{"sql": sql})
	return fake.Calls(fake.Call{Name: "run_sql", Args: string(b)})
}

// askJSON runs loupe ask --json and returns the conversation id it
// announced and its stdout.
func askJSON(t *testing.T, args ...string) (string, string) {
	t.Helper()
	code, out, errs := run(t, "", append([]string{"ask", "--model", "qwen3:8b", "--json"}, args...)...)
	if code != ExitOK {
		t.Fatalf("ask %q: exit %d: %s", args, code, errs)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var ev struct {
			Type   string `json:"type"`
			ChatID string `json:"chat_id"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "conversation" {
			return ev.ChatID, out
		}
	}
	t.Fatalf("ask printed no conversation line:\n%s", out)
	return "", ""
}

// shown returns the messages of the first model request whose last
// message is question.
func shown(t *testing.T, srv *fake.Server, question string) []llm.Message {
	t.Helper()
	for _, r := range srv.Requests() {
		if l := r.Last(); l.Role == llm.User && agent.UserWords(l.Content) == question {
			return r.Messages
		}
	}
	t.Fatalf("the model was never asked %q", question)
	return nil
}

// showsSQL reports whether msgs show the model an earlier query holding
// sql: in a note of an answer's calls, or as a call of a run replayed as
// it was sent.
func showsSQL(msgs []llm.Message, sql string) bool {
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			var args struct{ SQL string }
			if m.Role == llm.Assistant && json.Unmarshal(c.Arguments, &args) == nil && strings.Contains(args.SQL, sql) {
				return true
			}
		}
	}
	return contains(msgs, llm.Assistant, sql)
}

func contains(msgs []llm.Message, role llm.Role, text string) bool {
	for _, m := range msgs {
		if m.Role == role && strings.Contains(m.Content, text) {
			return true
		}
	}
	return false
}

// "same but for 2023" and "now by region" work without repeating the
// question: the model is shown the earlier question and its SQL.
func TestFollowUpsResolveFromTheConversation(t *testing.T) {
	ws := salesWorkspace(t)
	srv := fake.Start(t, fake.Options{Respond: resolvingModel})
	url := srv.OllamaURL()
	chat, _ := askJSON(t, "--workspace", ws, "--base-url", url, "Revenue by month in 2024?")
	if !strings.HasPrefix(chat, "chat_") {
		t.Fatalf("conversation id %q", chat)
	}
	if again, _ := askJSON(t, "--workspace", ws, "--base-url", url, "--chat", chat, "same but for 2023"); again != chat {
		t.Fatalf("the follow-up went to %s, not %s", again, chat)
	}
	msgs := shown(t, srv, "same but for 2023")
	if !contains(msgs, llm.User, "Revenue by month in 2024?") || !showsSQL(msgs, revenue2024) {
		t.Errorf("the follow-up was not shown the earlier question and its SQL: %+v", msgs)
	}
	askJSON(t, "--workspace", ws, "--base-url", url, "--chat", chat, "now by region")
	msgs = shown(t, srv, "now by region")
	if !contains(msgs, llm.User, "same but for 2023") || !showsSQL(msgs, "WHERE year = 2023 GROUP BY month") {
		t.Errorf("the second follow-up was not shown the first and its SQL: %+v", msgs)
	}

	code, out, errs := run(t, "", "chat", "show", "--workspace", ws, "--json", chat)
	if code != ExitOK {
		t.Fatalf("chat show: %s", errs)
	}
	var th store.Thread
	if err := json.Unmarshal([]byte(out), &th); err != nil {
		t.Fatal(err)
	}
	if len(th.Messages) != 6 || th.Name != "Revenue by month in 2024?" {
		t.Fatalf("%d messages, name %q", len(th.Messages), th.Name)
	}
	// Each answer ran the resolved query on the data: 2023 by month is
	// 10 and 25; 2023 by region is north 15, south 20.
	want := []struct{ sql, answer string }{
		{revenue2024, "1 | 100 2 | 200"},
		{"SELECT month, sum(amount) AS revenue FROM sales WHERE year = 2023 GROUP BY month ORDER BY month", "1 | 10 2 | 25"},
		{"SELECT region, sum(amount) AS revenue FROM sales WHERE year = 2023 GROUP BY region ORDER BY region", "north | 15 south | 20"},
	}
	for i, w := range want {
		a := th.Messages[2*i+1]
		if a.Status != store.Complete || len(a.ToolCalls) != 1 || !strings.Contains(a.ToolCalls[0].Arguments, w.sql) ||
			!strings.Contains(a.Content, w.answer) || len(a.Datasets) != 1 || a.Datasets[0] != "sales" || a.PromptTokens == 0 {
			t.Errorf("answer %d: %s, calls %+v, datasets %v, content %q", i, a.Status, a.ToolCalls, a.Datasets, a.Content)
		}
	}
}

func TestChatsAndChatShow(t *testing.T) {
	ws := askWorkspace(t)
	code, out, _ := run(t, "", "chats", "--workspace", ws)
	if code != ExitOK || !strings.Contains(out, "No conversations yet") {
		t.Errorf("empty list: %d %q", code, out)
	}
	srv := fake.New(t, askTurns()[:3]...)
	code, out, errs := run(t, "", "ask", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "Which region sells most?")
	if code != ExitOK {
		t.Fatalf("ask: %s", errs)
	}
	m := regexp.MustCompile(`Conversation (chat_[0-9a-f]+) \(new\)`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "continue it with: loupe ask --chat "+m[1]) {
		t.Fatalf("ask did not print its conversation:\n%s", out)
	}
	chat := m[1]
	code, out, _ = run(t, "", "chats", "--workspace", ws)
	if code != ExitOK || !strings.Contains(out, chat) || !strings.Contains(out, "Which region sells most?") {
		t.Errorf("chats:\n%s", out)
	}
	code, out, _ = run(t, "", "chats", "--workspace", ws, "--json")
	var c store.Conversation
	if code != ExitOK || json.Unmarshal([]byte(out), &c) != nil || c.ID != chat || c.Messages != 2 {
		t.Errorf("chats --json: %q", out)
	}
	code, out, _ = run(t, "", "chat", "show", "--workspace", ws, chat)
	for _, want := range []string{"▸ You", "Which region sells most?", "[complete]", "→ run_sql  SELECT region", "→ create_chart", "North sold the most"} {
		if code != ExitOK || !strings.Contains(out, want) {
			t.Errorf("chat show lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range [][]string{{"chat", "show", "--workspace", ws, "chat_nope"}, {"chat", "--workspace", ws, "list"}} {
		code, _, errs := run(t, "", bad...)
		if code == ExitOK || errs == "" {
			t.Errorf("%q: exit %d, %q", bad, code, errs)
		}
	}
}

// A run that failed is retried with --retry; the failed answer is kept.
func TestAskRetry(t *testing.T) {
	ws := askWorkspace(t)
	srv := fake.New(t, fake.Failing(fake.Status(400, "the request was refused")), fake.Text("There are three sales.\n\nFindings:\n- three sales"))
	code, out, _ := run(t, "", "ask", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "--json", "How many sales?")
	if code != ExitError {
		t.Fatalf("the failing run exited %d", code)
	}
	chat := regexp.MustCompile(`"chat_id":"(chat_[0-9a-f]+)"`).FindStringSubmatch(out)[1]
	for _, bad := range [][]string{
		{"ask", "--workspace", ws, "--model", "m", "--chat", chat, "--retry", "How many?"},
		{"ask", "--workspace", ws, "--model", "m", "--retry"},
	} {
		if code, _, _ := run(t, "", bad...); code != ExitUsage {
			t.Errorf("%q: exit %d, want usage", bad, code)
		}
	}
	code, _, errs := run(t, "", "ask", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "--chat", chat, "--retry")
	if code != ExitOK {
		t.Fatalf("retry: %s", errs)
	}
	st, err := store.OpenDir(t.Context(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	th, err := st.Thread(t.Context(), chat)
	if err != nil {
		t.Fatal(err)
	}
	if len(th.Messages) != 3 || th.Messages[1].Status != store.Failed || th.Messages[1].Error == "" ||
		th.Messages[2].Status != store.Complete || th.Messages[2].ParentID != th.Messages[0].ID || !strings.HasPrefix(th.Messages[2].Content, "There are three sales.") {
		t.Fatalf("after the retry: %+v", th.Messages)
	}
	if code, _, errs := run(t, "", "ask", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "m", "--chat", chat, "--retry"); code != ExitError || !strings.Contains(errs, "nothing to retry") {
		t.Errorf("retrying a complete answer: %d %s", code, errs)
	}
}

// The report of an old conversation exports later with no model: it was
// stored when it was written. A conversation without one gets one written.
func TestExportAnOldConversationsReport(t *testing.T) {
	ws := askWorkspace(t)
	srv := fake.New(t, askTurns()...)
	first := filepath.Join(t.TempDir(), "first")
	chat, _ := askJSON(t, "--workspace", ws, "--base-url", srv.OllamaURL(), "--report", first, "Which region sells most?")
	srv.Close() // no model from here on

	dir := filepath.Join(t.TempDir(), "again")
	code, out, errs := run(t, "", "export", "--workspace", ws, "--chat", chat, "--out", dir)
	if code != ExitOK || strings.TrimSpace(out) != filepath.Join(dir, "report.md") {
		t.Fatalf("export md: %d %q %s", code, out, errs)
	}
	old, _ := os.ReadFile(filepath.Join(first, "report.md"))
	again, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil || string(again) != string(old) || !strings.Contains(string(again), "| north") {
		t.Errorf("the re-export differs from the first export (%v):\n%s", err, again)
	}
	if _, err := os.Stat(filepath.Join(dir, "charts", "c1.svg")); err != nil {
		t.Error(err)
	}
	page := t.TempDir()
	code, out, errs = run(t, "", "export", "--workspace", ws, "--chat", chat, "--format", "html", "--out", page)
	if code != ExitOK || strings.TrimSpace(out) != filepath.Join(page, "report.html") {
		t.Fatalf("export html: %d %q %s", code, out, errs)
	}
	if entries, _ := os.ReadDir(page); len(entries) != 1 {
		t.Errorf("html export left %d entries", len(entries))
	}
	code, out, _ = run(t, "", "chat", "show", "--workspace", ws, "--json", chat)
	var th struct {
		Reports []store.Report `json:"reports"`
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &th) != nil || len(th.Reports) != 1 || len(th.Reports[0].Exports) != 3 ||
		th.Reports[0].Exports[2].Format != "html" {
		t.Errorf("export history: %+v", th.Reports)
	}

	// Without a stored report one is written, then stored.
	srv2 := fake.New(t, append(askTurns()[:3], askTurns()[3])...)
	other, _ := askJSON(t, "--workspace", ws, "--base-url", srv2.OllamaURL(), "Which region sells most?")
	out3 := filepath.Join(t.TempDir(), "third")
	code, _, errs = run(t, "", "export", "--workspace", ws, "--base-url", srv2.OllamaURL(), "--model", "qwen3:8b", "--chat", other, "--out", out3)
	if code != ExitOK || !strings.Contains(errs, "writing one") {
		t.Fatalf("export without a report: %d %s", code, errs)
	}
	if md, err := os.ReadFile(filepath.Join(out3, "report.md")); err != nil || !strings.Contains(string(md), "# North leads sales") {
		t.Errorf("written report: %v\n%s", err, md)
	}
	for _, bad := range [][]string{{"export", "--workspace", ws, "--out", out3}, {"export", "--workspace", ws, "--chat", chat, "--out", out3, "--format", "docx"}} {
		if code, _, _ := run(t, "", bad...); code != ExitUsage {
			t.Errorf("%q: exit %d", bad, code)
		}
	}
	if code, _, errs := run(t, "", "export", "--workspace", ws, "--chat", "chat_nope", "--out", out3); code != ExitError || !strings.Contains(errs, "no conversation") {
		t.Errorf("unknown chat: %d %s", code, errs)
	}
}

// A long conversation is compacted so that a follow-up's prompt fits the
// model's context window, keeping the last turns in detail and the
// user's earlier questions.
func TestALongConversationFitsTheModelsContext(t *testing.T) {
	ws := salesWorkspace(t)
	st, err := store.OpenDir(t.Context(), ws)
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.CreateConversation(t.Context(), "", ws)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		p, err := st.Ask(t.Context(), c.ID, "Question "+strconv.Itoa(i)+": revenue by month in 2024?")
		if err != nil {
			t.Fatal(err)
		}
		r, err := st.Claim(t.Context(), p.Assistant.ID, "run_"+strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		sql := strings.Replace(revenue2024, "month", "month /* turn "+strconv.Itoa(i)+" */", 1)
		if err := r.Finish(t.Context(), store.Final{Status: store.Complete, Content: strings.Repeat("A long answer about revenue. ", 40),
			ToolCalls: []store.ToolCall{{Seq: 1, CallID: "call_1", Step: 1, Name: "run_sql", Arguments: `{"sql":"` + sql + `"}`, Result: strings.Repeat("| 1 | 100 ", 150)}}}); err != nil {
			t.Fatal(err)
		}
	}
	_ = st.Close()
	const window = 8192
	srv := fake.Start(t, fake.Options{Respond: resolvingModel, Models: []fake.Model{{Name: "qwen3:8b", Tools: true, ContextLength: window}}})
	askJSON(t, "--workspace", ws, "--base-url", srv.OllamaURL(), "--chat", c.ID, "same but for 2023")
	msgs := shown(t, srv, "same but for 2023")
	chars := 0
	for _, m := range msgs {
		chars += len(m.Content)
	}
	if chars/4 > window*3/4 {
		t.Errorf("the prompt is about %d tokens for a %d-token window", chars/4, window)
	}
	if !contains(msgs, llm.Assistant, "turn 59 */") || !contains(msgs, llm.User, "Question 59: revenue by month in 2024?") {
		t.Errorf("the last turn is not shown in detail")
	}
	if !contains(msgs, llm.User, "Question 0: revenue by month in 2024?") {
		t.Errorf("the user's first question was dropped")
	}
	code, out, _ := run(t, "", "chat", "show", "--workspace", ws, "--json", c.ID)
	var th store.Thread
	if code != ExitOK || json.Unmarshal([]byte(out), &th) != nil || len(th.Messages) != 122 ||
		!strings.Contains(th.Messages[121].ToolCalls[0].Arguments, "WHERE year = 2023") {
		t.Errorf("the follow-up did not rerun the last query for 2023: %+v", th.Messages[len(th.Messages)-1])
	}
}

// A retry retrieves the tables for the stored question, not for the empty
// command line: among many tables the prompt still describes the one asked
// about.
func TestAskRetryRetrievesForTheStoredQuestion(t *testing.T) {
	ws := t.TempDir()
	dir := t.TempDir()
	// sales first, so that it is not among the latest tables either.
	if code, _, errs := run(t, "", "load", "--workspace", ws, writeFile(t, dir, "sales.csv", "region,amount\nnorth,10\nsouth,12\nnorth,7\n")); code != ExitOK {
		t.Fatalf("load: %s", errs)
	}
	var files []string
	for i := range 25 {
		files = append(files, writeFile(t, dir, fmt.Sprintf("a_sensor_%02d.csv", i), "station,reading\n1,0.5\n2,0.7\n"))
	}
	if code, _, errs := run(t, "", append([]string{"load", "--workspace", ws}, files...)...); code != ExitOK {
		t.Fatalf("load: %s", errs)
	}
	srv := fake.New(t, fake.Failing(fake.Status(400, "the request was refused")), fake.Text("North sold the most.\n\nFindings:\n- north leads"))
	code, out, _ := run(t, "", "ask", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "--json", "What is the total amount per region?")
	if code != ExitError {
		t.Fatalf("the failing run exited %d", code)
	}
	chat := regexp.MustCompile(`"chat_id":"(chat_[0-9a-f]+)"`).FindStringSubmatch(out)[1]
	if code, _, errs := run(t, "", "ask", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "--chat", chat, "--retry"); code != ExitOK {
		t.Fatalf("retry: %s", errs)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if len(last.Messages) == 0 || !strings.Contains(agenttest.Prompt(last), "amount") {
		t.Fatalf("the retried run's prompt does not describe sales:\n%+v", last.Messages)
	}
}
