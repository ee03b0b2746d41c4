package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm/fake"
)

// TestPrivate lists the columns Loupe proposes as private, then turns one
// off and another on; the decisions are kept in the workspace.
func TestPrivate(t *testing.T) {
	ws := t.TempDir()
	src := t.TempDir()
	f := writeFile(t, src, "people.csv", "id,email,contact,city,score\n1,a@x.org,+44 20 7946 0958,Oslo,3\n2,b@x.org,+44 20 7946 0777,Lima,4\n")
	if code, _, errs := run(t, "", "load", "--workspace", ws, f); code != ExitOK {
		t.Fatalf("load: %s", errs)
	}
	code, out, errs := run(t, "", "private", "--workspace", ws)
	if code != ExitOK {
		t.Fatalf("list: %d %s", code, errs)
	}
	want := "people.email\tprivate\temail\tproposed by Loupe\npeople.contact\tprivate\tphone\tproposed by Loupe\n"
	if out != want {
		t.Fatalf("list:\n%s\nwant:\n%s", out, want)
	}
	if code, out, errs = run(t, "", "private", "--workspace", ws, "people", "EMAIL", "--off"); code != ExitOK || out != "people.email\topen\t\tset by you\n" {
		t.Fatalf("off: %d %q %s", code, out, errs)
	}
	if code, out, errs = run(t, "", "private", "people", "city", "--workspace", ws); code != ExitOK || out != "people.city\tprivate\tprivate\tset by you\n" {
		t.Fatalf("on: %d %q %s", code, out, errs)
	}
	code, out, _ = run(t, "", "private", "--workspace", ws, "people")
	for _, line := range []string{"people.email\topen\t\tset by you", "people.city\tprivate\tprivate\tset by you", "people.contact\tprivate\tphone\tproposed by Loupe", "people.score\topen\t\t"} {
		if !strings.Contains(out, line+"\n") {
			t.Errorf("table listing lacks %q:\n%s", line, out)
		}
	}

	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		message string
	}{
		{"unknown table", []string{"private", "--workspace", ws, "nope", "x"}, ExitError, `no table is called "nope" (tables: people)`},
		{"unknown column", []string{"private", "--workspace", ws, "people", "mail"}, ExitError, `people has no column "mail" (its columns: id, email, contact, city, score)`},
		{"unknown table listing", []string{"private", "--workspace", ws, "nope"}, ExitError, `no table is called "nope"`},
		{"off without column", []string{"private", "--workspace", ws, "people", "--off"}, ExitUsage, "give nothing (list)"},
		{"too many", []string{"private", "--workspace", ws, "a", "b", "c"}, ExitUsage, "give nothing (list)"},
		{"both places", []string{"private", "--workspace", ws, "--connection", "x"}, ExitUsage, "not both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := run(t, "", tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.message) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errs, tc.code, tc.message)
			}
		})
	}
}

// loupe ask --privacy masked sends no private value, in the run nor in
// its report, nor does loupe export when it writes a report; the report
// on disk shows the real rows.
func TestAskAndExportMasked(t *testing.T) {
	ws := t.TempDir()
	f := writeFile(t, t.TempDir(), "members.csv", "id,full_name,email,visits\n1,Quillon Vexbridge,qv.canary7@example.org,3\n2,Zarathea Mundlequist,zm.canary8@example.net,5\n")
	if code, _, errs := run(t, "", "load", "--workspace", ws, f); code != ExitOK {
		t.Fatalf("load: %s", errs)
	}
	const sql = "SELECT full_name, email, visits FROM members ORDER BY visits"
	turns := func() []fake.Turn {
		return []fake.Turn{
			fake.Calls(fake.Call{Name: "run_sql", Args: `{"sql":"` + sql + `","purpose":"members"}`}),
			fake.Text("Two members.\n\nFindings:\n- Two members [q1]"),
			fake.Text("# Members\n\nThe members:\n\n{{table:q1}}"),
		}
	}
	canaries := []string{"Quillon", "Vexbridge", "Zarathea", "canary7", "canary8"}
	check := func(srv *fake.Server) {
		t.Helper()
		if len(srv.Requests()) < 2 {
			t.Fatalf("%d requests", len(srv.Requests()))
		}
		for _, r := range srv.Requests() {
			for _, c := range canaries {
				if strings.Contains(string(r.Body), c) {
					t.Errorf("request %d carries %q", r.N, c)
				}
			}
		}
	}
	srv := fake.New(t, turns()...)
	rep := filepath.Join(t.TempDir(), "report")
	code, _, errs := run(t, "", "ask", "--workspace", ws, "--base-url", srv.OllamaURL(), "--model", "qwen3:8b", "--privacy", "masked", "--report", rep, "Who are the members?")
	if code != ExitOK {
		t.Fatalf("ask: %d %s", code, errs)
	}
	check(srv)
	if md, err := os.ReadFile(filepath.Join(rep, "report.md")); err != nil || !strings.Contains(string(md), "Quillon Vexbridge") {
		t.Errorf("the report on disk must show the real rows: %v\n%s", err, md)
	}

	srv2 := fake.New(t, turns()...)
	chat, _ := askJSON(t, "--workspace", ws, "--base-url", srv2.OllamaURL(), "--privacy", "masked", "Who are the members?")
	out := filepath.Join(t.TempDir(), "export")
	code, _, errs = run(t, "", "export", "--workspace", ws, "--base-url", srv2.OllamaURL(), "--model", "qwen3:8b", "--privacy", "masked", "--chat", chat, "--out", out)
	if code != ExitOK || !strings.Contains(errs, "writing one") {
		t.Fatalf("export: %d %s", code, errs)
	}
	check(srv2)
}
