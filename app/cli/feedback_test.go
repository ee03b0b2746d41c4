package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm/fake"
)

// A thumbs up from the CLI verifies the answer; `loupe eval --verified`
// then replays it against two models (gold: the verified SQL re-run) and
// prints one line per model.
func TestFeedbackThenEvalVerifiedAcrossModels(t *testing.T) {
	ws := askWorkspace(t)
	wrong := "SELECT region, count(*) AS total FROM sales GROUP BY region"
	srv := fake.New(t,
		fake.Calls(fake.Call{Name: "run_sql", Args: `{"sql":"` + askSQL + `"}`}),
		fake.Text("North sold the most.\n\nFindings:\n- North leads [q1]"),
		// eval, model a: the verified query again
		fake.Calls(fake.Call{Name: "run_sql", Args: `{"sql":"` + askSQL + `"}`}),
		fake.Text("North, 17."),
		// eval, model b: a query that counts instead of summing
		fake.Calls(fake.Call{Name: "run_sql", Args: `{"sql":"` + wrong + `"}`}),
		fake.Text("North, 2."),
	)
	if code, _, errs := run(t, "", "eval", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "a", "--verified"); code == ExitOK || !strings.Contains(errs, "no verified answer yet") {
		t.Fatalf("eval --verified with none: %d %s", code, errs)
	}
	chat, _ := askJSON(t, "--workspace", ws, "--base-url", srv.OllamaURL(), "Which region sells most?")
	code, out, errs := run(t, "", "feedback", "--workspace", ws, "--chat", chat, "--note", "matches the books", "up")
	if code != ExitOK || strings.TrimSpace(out) != "Question 1 (Which region sells most?): verified, 1 query." {
		t.Fatalf("feedback: %d %q %s", code, out, errs)
	}
	code, out, errs = run(t, "", "eval", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "a,b", "--verified")
	if code != ExitOK {
		t.Fatalf("eval: %d %s\n%s", code, errs, out)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^model\s+accuracy\s+passed\s+steps\s+tokens\s+p50 s\s+p95 s$`),
		regexp.MustCompile(`(?m)^a\s+100\.0%\s+1/1\s+2\.0\s+\d+\s+\d+\.\d\s+\d+\.\d$`),
		regexp.MustCompile(`(?m)^b\s+0\.0%\s+0/1\s+2\.0\s+\d+`),
	} {
		if !want.MatchString(out) {
			t.Errorf("the table lacks %s:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "", "eval", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "a,b", "--verified", "--json")
	var got struct {
		Models []modelSummary `json:"models"`
	}
	// The script is spent: each model's run fails, and says so per model.
	if code != ExitOK || json.Unmarshal([]byte(out), &got) != nil || len(got.Models) != 2 || got.Models[1].Model != "b" ||
		got.Models[1].Summary == nil || got.Models[1].Summary.Failures["run_failed"] != 1 {
		t.Errorf("bake-off as JSON: %d %s", code, out)
	}
	for _, bad := range [][]string{
		{"feedback", "--workspace", ws, "--chat", chat, "sideways"},
		{"feedback", "--workspace", ws, "up"},
		{"eval", "--workspace", ws, "--model", "a", "--verified", "--sample"},
	} {
		if code, _, _ := run(t, "", bad...); code != ExitUsage {
			t.Errorf("%q: exit %d", bad, code)
		}
	}
	if code, _, errs := run(t, "", "feedback", "--workspace", ws, "--chat", chat, "--turn", "4", "down"); code == ExitOK || !strings.Contains(errs, "no question 4") {
		t.Errorf("feedback on question 4: %d %s", code, errs)
	}
}
