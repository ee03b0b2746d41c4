package cli

import (
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm/fake"
)

// `loupe ask --privacy schema`: the model is sent no value of the table,
// answers with references, and the terminal shows the real values.
func TestAskAtSchemaPrintsRealValues(t *testing.T) {
	ws := t.TempDir()
	csv := writeFile(t, t.TempDir(), "sales.csv", "region,amount\ncv-north-7f3a,1000017\ncv-south-7f3a,1000012\n")
	if code, _, errs := run(t, "", "load", "--workspace", ws, csv); code != ExitOK {
		t.Fatalf("load: %s", errs)
	}
	srv := fake.Start(t, fake.Options{Turns: []fake.Turn{
		fake.Calls(fake.Call{Name: "run_sql", Args: `{"sql":"SELECT region, amount FROM sales ORDER BY amount DESC"}`}),
		fake.Text("{{q1.region[0]}} sold the most, {{q1.amount[0]}}.\n\nFindings:\n- {{q1.region[1]}} follows with {{q1.amount[1]}} [q1]"),
	}})
	code, out, errs := run(t, "", "ask", "--workspace", ws, "--provider", "ollama", "--base-url", srv.OllamaURL(), "--model", "qwen3:8b",
		"--privacy", "schema", "Which region sells most?")
	if code != ExitOK {
		t.Fatalf("ask: exit %d: %s", code, errs)
	}
	for _, want := range []string{"cv-north-7f3a sold the most, 1000017.", "cv-south-7f3a follows with 1000012"} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal must show %q:\n%s", want, out)
		}
	}
	for _, r := range srv.Requests() {
		for _, v := range []string{"cv-north-7f3a", "cv-south-7f3a", "1000017", "1000012"} {
			if strings.Contains(string(r.Body), v) {
				t.Errorf("request %d holds %q", r.N, v)
			}
		}
	}
}
