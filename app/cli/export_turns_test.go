package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm/fake"
)

// `loupe export` covers the whole conversation by default, or the
// questions --turns picks; refs run on across questions in the trace, and
// the report's notes (what it removed) are printed, not dropped.
func TestExportCoversTheConversationOrThePickedQuestions(t *testing.T) {
	ws := askWorkspace(t)
	follow := "SELECT count(*) AS sales FROM sales"
	srv := fake.New(t,
		askTurns()[0], askTurns()[1], askTurns()[2],
		fake.Calls(fake.Call{Name: "run_sql", Args: `{"sql":"` + follow + `","purpose":"count sales"}`}),
		fake.Text("There are three sales.\n\nFindings:\n- Three sales [q2]"),
		fake.Text("# Sales\n\n## Findings\n\nNorth leads [q1, c1].\n\n{{chart:c1}}\n\nThree sales [q2] and [q7].\n\n{{table:q2}}\n"),
		fake.Text("# The count\n\nThree sales [q2].\n\n{{table:q2}}\n"),
	)
	chat, _ := askJSON(t, "--workspace", ws, "--base-url", srv.OllamaURL(), "Which region sells most?")
	code, out, errs := run(t, "", "ask", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "--chat", chat, "How many sales?")
	if code != ExitOK || !strings.Contains(out, "← [q2] ") {
		t.Fatalf("the follow-up's query is not q2: %d\n%s\n%s", code, out, errs)
	}

	// loupe chat show names the refs too, unique across the conversation.
	if code, out, _ := run(t, "", "chat", "show", "--workspace", ws, chat); code != ExitOK || !strings.Contains(out, "    [q1] ") ||
		!strings.Contains(out, "    [c1] ") || !strings.Contains(out, "    [q2] ") {
		t.Errorf("chat show: %d\n%s", code, out)
	}
	dir := filepath.Join(t.TempDir(), "all")
	code, out, errs = run(t, "", "export", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "--chat", chat, "--out", dir)
	if code != ExitOK || strings.TrimSpace(out) != filepath.Join(dir, "report.md") {
		t.Fatalf("export: %d %q %s", code, out, errs)
	}
	if !strings.Contains(errs, "Notes on this report:") || !strings.Contains(errs, "citation q7") {
		t.Errorf("export did not list what it removed:\n%s", errs)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"charts/c1.svg", "### q1 — sales by region", "### q2 — count sales", "North leads (query q1; Figure 1).", "Three sales (Table 1)", "citation q7"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	// The stored report covers both questions: exported again, it is reused.
	again := filepath.Join(t.TempDir(), "again")
	if code, _, errs := run(t, "", "export", "--workspace", ws, "--chat", chat, "--out", again); code != ExitOK || strings.Contains(errs, "writing one") {
		t.Fatalf("re-export: %d %s", code, errs)
	}
	// Question 2 alone is another report.
	two := filepath.Join(t.TempDir(), "two")
	code, _, errs = run(t, "", "export", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "--chat", chat, "--turns", "2", "--out", two)
	if code != ExitOK || !strings.Contains(errs, "covers questions 2") {
		t.Fatalf("export --turns 2: %d %s", code, errs)
	}
	md, _ = os.ReadFile(filepath.Join(two, "report.md"))
	if !strings.Contains(string(md), "# The count") || strings.Contains(string(md), "q1") || !strings.Contains(string(md), "question: “How many sales?”") {
		t.Errorf("the report of question 2:\n%s", md)
	}
	for _, bad := range []string{"0", "x", "3-1"} {
		if code, _, errs := run(t, "", "export", "--workspace", ws, "--chat", chat, "--turns", bad, "--out", two); code != ExitUsage || !strings.Contains(errs, "--turns") {
			t.Errorf("--turns %s: %d %s", bad, code, errs)
		}
	}
	if code, _, errs := run(t, "", "export", "--workspace", ws, "--chat", chat, "--turns", "5", "--out", two); code == ExitOK || !strings.Contains(errs, "no question 5") {
		t.Errorf("--turns 5: %d %s", code, errs)
	}
}
