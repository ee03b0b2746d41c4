package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/app/buildinfo"
)

// run runs the CLI in-process and returns its exit code and outputs.
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadAndSQL(t *testing.T) {
	ws := t.TempDir()
	src := t.TempDir()
	a := writeFile(t, src, "Sales 2024.csv", "region,amount\nnorth,10\nsouth,32.5\nnorth,7\n")
	b := writeFile(t, src, "people.json", `[{"name":"Ada","age":36},{"name":"Lin","age":41}]`)

	code, out, errs := run(t, "", "load", "--workspace", ws, a, b)
	if code != ExitOK {
		t.Fatalf("load exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one JSON line per table, got %q", out)
	}
	var first loadLine
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.Table != "sales_2024" || first.Rows != 3 || len(first.Columns) != 2 || first.Columns[1].Type != "DOUBLE" {
		t.Errorf("load line = %+v", first)
	}

	code, out, errs = run(t, "", "sql", "--workspace", ws, "--json", "SELECT region, sum(amount) AS total FROM sales_2024 GROUP BY ALL ORDER BY 1")
	if code != ExitOK {
		t.Fatalf("sql exit %d: %s", code, errs)
	}
	var res struct {
		Columns []struct{ Name string }
		Rows    [][]any
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(res.Rows) != 2 || res.Rows[0][0] != "north" || res.Rows[0][1] != 17.0 {
		t.Errorf("rows = %v", res.Rows)
	}

	// The query can come from standard input, and the table form aligns.
	code, out, _ = run(t, "SELECT name FROM people ORDER BY age DESC", "sql", "--workspace", ws, "-")
	if code != ExitOK || !strings.Contains(out, "Lin") || !strings.Contains(out, "2 rows") {
		t.Errorf("sql from stdin: exit %d, out %q", code, out)
	}
}

func TestExitCodes(t *testing.T) {
	ws := t.TempDir()
	cases := []struct {
		name    string
		args    []string
		code    int
		message string
	}{
		{"no arguments", nil, ExitUsage, "Usage"},
		{"unknown command", []string{"frobnicate"}, ExitUsage, `unknown command "frobnicate"`},
		{"load without files", []string{"load", "--workspace", ws}, ExitUsage, "give at least one file"},
		{"missing file", []string{"load", "--workspace", ws, filepath.Join(ws, "nope.csv")}, ExitError, "no such file"},
		{"write refused", []string{"sql", "--workspace", ws, "DROP TABLE x"}, ExitRefused, "only reads data"},
		{"two statements refused", []string{"sql", "--workspace", ws, "SELECT 1; SELECT 2"}, ExitRefused, "one"},
		{"empty query", []string{"sql", "--workspace", ws, " "}, ExitUsage, "give a query"},
		{"bad flag", []string{"sql", "--nope", "SELECT 1"}, ExitUsage, "flag provided but not defined"},
		{"sql error", []string{"sql", "--workspace", ws, "SELECT nope FROM nowhere"}, ExitError, "nowhere"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := run(t, "", c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.code, errs)
			}
			if !strings.Contains(out+errs, c.message) {
				t.Errorf("output lacks %q:\nstdout %s\nstderr %s", c.message, out, errs)
			}
		})
	}
}

// TestLoadImportOptions: `loupe load` takes the import options of a text
// file as flags, and refuses bad ones with the load's hint.
func TestLoadImportOptions(t *testing.T) {
	ws := t.TempDir()
	src := writeFile(t, t.TempDir(), "export.txt", "Export from ShopSys\nid|city|amount\n1|M\xfcnchen|1.234,5\n2|K\xf6ln|7,25\n")
	code, out, errs := run(t, "", "load", "--workspace", ws, "--delimiter", "|", "--decimal", ",", "--encoding", "latin-1", "--skip", "1", "--header", "yes", src)
	if code != ExitOK {
		t.Fatalf("load exit %d: %s", code, errs)
	}
	var line loadLine
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &line); err != nil {
		t.Fatal(err)
	}
	if len(line.Columns) != 3 || line.Columns[1].Name != "city" || line.Columns[2].Type != "DOUBLE" || len(line.Warnings) == 0 {
		t.Errorf("load line = %+v", line)
	}
	code, out, _ = run(t, "", "sql", "--workspace", ws, "--json", "SELECT city, amount FROM export WHERE id = 1")
	if code != ExitOK || !strings.Contains(out, "München") || !strings.Contains(out, "1234.5") {
		t.Errorf("sql exit %d: %s", code, out)
	}
	code, _, errs = run(t, "", "load", "--workspace", ws, "--decimal", ";", src)
	if code != ExitError || !strings.Contains(errs, `use "," or "."`) {
		t.Errorf("bad --decimal: exit %d: %s", code, errs)
	}
}

// TestHelpAndVersion: `loupe help` names every way to start Loupe (the
// window, files, commands, --version), and --version prints the one
// version the window's About shows (buildinfo).
func TestHelpAndVersion(t *testing.T) {
	code, out, _ := run(t, "", "help")
	if code != ExitOK {
		t.Fatalf("help exit %d", code)
	}
	for _, want := range []string{"loupe FILE…", "loupe --version", "loupe COMMAND", "loupe load", "loupe sql"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
	for _, arg := range []string{"--version", "version"} {
		code, out, errs := run(t, "", arg)
		if code != ExitOK || out != "loupe "+buildinfo.Version()+"\n" {
			t.Errorf("loupe %s: exit %d, stdout %q (stderr %q), want %q", arg, code, out, errs, "loupe "+buildinfo.Version()+"\n")
		}
	}
}
