package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/workspace"
)

func storedNotes(t *testing.T, dir, table string) catalog.Dataset {
	t.Helper()
	w, err := workspace.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	d, err := catalog.Get(context.Background(), w.Engine.DB(), table)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestNote sets, uses and clears notes from the command line: a question
// worded like the note finds the table in loupe search.
func TestNote(t *testing.T) {
	ws := t.TempDir()
	src := t.TempDir()
	a := writeFile(t, src, "t_x17.csv", "k1,v2\na,1\nb,2\n")
	b := writeFile(t, src, "sales.csv", "region,amount\nnorth,10\n")
	if code, _, errs := run(t, "", "load", "--workspace", ws, a, b); code != ExitOK {
		t.Fatalf("load: %s", errs)
	}
	code, out, errs := run(t, "", "note", "--workspace", ws, "t_x17", "Monthly churn of subscribers by acquisition channel")
	if code != ExitOK || out != "t_x17: note set\n" {
		t.Fatalf("note: exit %d %q %s", code, out, errs)
	}
	if code, out, errs = run(t, "", "note", "t_x17", "v2", "churned subscribers", "--workspace", ws); code != ExitOK || out != "t_x17.v2: note set\n" {
		t.Fatalf("column note: exit %d %q %s", code, out, errs)
	}
	d := storedNotes(t, ws, "t_x17")
	if d.Note != "Monthly churn of subscribers by acquisition channel" || d.Columns[1].Note != "churned subscribers" {
		t.Fatalf("stored: %q %+v", d.Note, d.Columns)
	}
	code, out, _ = run(t, "", "search", "--workspace", ws, "--json", "--k", "1", "subscriber churn per acquisition channel")
	if got := decodeMatches(t, out); code != ExitOK || len(got) != 1 || got[0].Table != "t_x17" {
		t.Errorf("search by the note: %d %s", code, out)
	}

	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		message string
	}{
		{"no text", []string{"note", "--workspace", ws, "t_x17"}, ExitUsage, "give TABLE TEXT"},
		{"too many", []string{"note", "--workspace", ws, "t_x17", "v2", "x", "y"}, ExitUsage, "give TABLE TEXT"},
		{"unknown table", []string{"note", "--workspace", ws, "nope", "x"}, ExitError, `no dataset is called "nope"`},
		{"unknown column", []string{"note", "--workspace", ws, "t_x17", "colour", "x"}, ExitError, "t_x17.colour: no such column"},
		{"too long", []string{"note", "--workspace", ws, "t_x17", strings.Repeat("a", catalog.MaxNote+1)}, ExitError, "more than the 2000"},
	} {
		code, _, errs := run(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.message) {
			t.Errorf("%s: exit %d, stderr %q", tc.name, code, errs)
		}
	}

	// Empty text clears, the table's note and the column's separately.
	if code, out, _ := run(t, "", "note", "--workspace", ws, "t_x17", "v2", ""); code != ExitOK || out != "t_x17.v2: note cleared\n" {
		t.Errorf("clear column note: %d %q", code, out)
	}
	if d := storedNotes(t, ws, "t_x17"); d.Note == "" || d.Columns[1].Note != "" {
		t.Errorf("after clearing the column's note: %q %+v", d.Note, d.Columns)
	}
	if code, _, _ := run(t, "", "note", "--workspace", ws, "t_x17", ""); code != ExitOK {
		t.Errorf("clear table note: %d", code)
	}
	if d := storedNotes(t, ws, "t_x17"); d.Note != "" {
		t.Errorf("table note not cleared: %q", d.Note)
	}
	if _, out, _ := run(t, "", "help"); !strings.Contains(out, "loupe note [--workspace DIR | --connection NAME] TABLE [COLUMN] TEXT") {
		t.Errorf("usage lacks note:\n%s", out)
	}
}
