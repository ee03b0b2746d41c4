package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm/fake"
)

const (
	askSQL  = "SELECT region, sum(amount) AS total FROM sales GROUP BY region ORDER BY total DESC"
	askSpec = `{"mark":"bar","encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"total","type":"quantitative"}}}`
)

// askTurns is a scripted exploration followed by the report stage's reply.
func askTurns() []fake.Turn {
	return []fake.Turn{
		fake.Calls(fake.Call{Name: "run_sql", Args: `{"sql":"` + askSQL + `","purpose":"sales by region"}`}),
		fake.Calls(fake.Call{Name: "create_chart", Args: `{"title":"Sales by region","sql":"` + askSQL + `","spec":` + askSpec + `}`}),
		{Content: "North sold the most, 17 in total.\n\nFindings:\n- North leads with 17 [q1, c1]\n- South follows with 12 [q1]", Chunks: 3},
		fake.Text("# North leads sales\n\n## Executive summary\n\nNorth sold the most.\n\n## Findings\n\n{{chart:c1}}\n\n{{table:q1}}\n\n## Caveats\n\nA small sample."),
	}
}

func askWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	csv := writeFile(t, t.TempDir(), "sales.csv", "region,amount\nnorth,10\nsouth,12\nnorth,7\n")
	if code, _, errs := run(t, "", "load", "--workspace", ws, csv); code != ExitOK {
		t.Fatalf("load: %s", errs)
	}
	return ws
}

func TestAskJSONWithReport(t *testing.T) {
	for _, wire := range []string{"ollama", "openai"} {
		t.Run(wire, func(t *testing.T) {
			ws := askWorkspace(t)
			srv := fake.New(t, askTurns()...)
			url := srv.OllamaURL()
			if wire == "openai" {
				url = srv.OpenAIURL()
			}
			rep := filepath.Join(t.TempDir(), "report")
			t.Setenv("OPENAI_API_KEY", "sk-test")
			code, out, errs := run(t, "", "ask", "--workspace", ws, "--provider", wire, "--base-url", url,
				"--model", "qwen3:8b", "--json", "--report", rep, "Which region sells most?")
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var types []string
			var finished map[string]any
			sc := bufio.NewScanner(strings.NewReader(out))
			sc.Buffer(make([]byte, 1<<20), 1<<22)
			for sc.Scan() {
				var ev map[string]any
				if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
					t.Fatalf("not one JSON event per line: %v\n%s", err, sc.Text())
				}
				types = append(types, ev["type"].(string))
				if ev["type"] == "run_finished" {
					finished = ev["finished"].(map[string]any)
				}
			}
			joined := strings.Join(types, " ")
			for _, want := range []string{"run_started", "step_started", "tool_call", "tool_result", "chart", "text_delta", "usage", "run_finished", "report"} {
				if !strings.Contains(joined, want) {
					t.Errorf("no %s event in %s", want, joined)
				}
			}
			if finished["status"] != "done" || !strings.Contains(finished["summary"].(string), "North sold the most") {
				t.Errorf("finished = %v", finished)
			}
			md, err := os.ReadFile(filepath.Join(rep, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"# North leads sales", "charts/c1.svg", "| north", askSQL} {
				if !strings.Contains(string(md), want) {
					t.Errorf("report.md lacks %q:\n%s", want, md)
				}
			}
			if _, err := os.Stat(filepath.Join(rep, "charts", "c1.svg")); err != nil {
				t.Error(err)
			}
			if _, err := os.Stat(filepath.Join(rep, "report.html")); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestAskReadableTrace(t *testing.T) {
	ws := askWorkspace(t)
	srv := fake.New(t, askTurns()[:3]...)
	code, out, errs := run(t, "", "ask", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "Which region sells most?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"▸ step 1", "→ run_sql  SELECT region", "← [q1] ", "→ create_chart", "← [c1]", "North sold the most, 17 in total.\n\nFindings:\n- North leads with 17 [q1, c1]", "3 step(s) · 2 tool call(s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "North sold the most"); n != 1 {
		t.Errorf("the streamed answer should be shown once, not %d times:\n%s", n, out)
	}
}

func TestAskErrors(t *testing.T) {
	ws := askWorkspace(t)
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no question", []string{"ask", "--workspace", ws, "--model", "m"}, ExitUsage, "give a question"},
		{"no model", []string{"ask", "--workspace", ws, "--base-url", "http://127.0.0.1:1", "hi"}, ExitError, "model"},
		{"unknown provider", []string{"ask", "--workspace", ws, "--provider", "nope", "--model", "m", "hi"}, ExitError, "nope"},
		{"nothing listening", []string{"ask", "--workspace", ws, "--base-url", "http://127.0.0.1:1", "--model", "m", "hi"}, ExitError, "127.0.0.1:1"},
	}
	t.Setenv("LOUPE_MODEL", "")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := run(t, "", c.args...)
			if code != c.code || !strings.Contains(out+errs, c.msg) {
				t.Errorf("exit %d (want %d), output lacks %q:\n%s%s", code, c.code, c.msg, out, errs)
			}
		})
	}
}

// A number no result backs is checked in the trace, challenged once,
// reaches the user marked, and the report lists the numbers checked
// (issue 23).
func TestAskMarksUnverifiedNumbers(t *testing.T) {
	ws := askWorkspace(t)
	claim := "North sold 17, ahead of the 99 of last year."
	srv := fake.New(t, askTurns()[0], fake.Text(claim), fake.Text(claim), fake.Text("# North leads\n\n## Summary\n\nNorth sold the most.\n\n{{table:q1}}"))
	rep := filepath.Join(t.TempDir(), "report")
	code, out, errs := run(t, "", "ask", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "--report", rep, "Which region sells most?")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"# numbers checked: 17 ✓ q1, 99 ✗ unverified (the model was asked to back or withdraw them)",
		"# numbers checked: 17 ✓ q1, 99 ✗ unverified\n",
		"North sold 17, ahead of the 99 [unverified] of last year.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
	md, err := os.ReadFile(filepath.Join(rep, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "### Numbers checked") || !strings.Contains(string(md), "17 (q1), 99 (found in no result: unverified)") {
		t.Errorf("report.md does not list the numbers checked:\n%s", md)
	}
}
