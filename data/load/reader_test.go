package load_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/workspace"
)

// readers returns the table macros in schema _loupe, sorted.
func readers(t *testing.T, w *workspace.Workspace) []string {
	t.Helper()
	var out []string
	for _, r := range rows(t, w, "SELECT function_name FROM duckdb_functions() WHERE schema_name = '_loupe' AND function_type = 'table_macro' ORDER BY 1") {
		out = append(out, r[0].(string))
	}
	return out
}

// viewSQL returns the definition DuckDB keeps of view.
func viewSQL(t *testing.T, w *workspace.Workspace, view string) string {
	t.Helper()
	got := rows(t, w, "SELECT sql FROM duckdb_views() WHERE view_name = '"+view+"'")
	if len(got) != 1 {
		t.Fatalf("view %s: %v", view, got)
	}
	return got[0][0].(string)
}

// TestFilesOfOneShapeShareAReader loads small plain CSVs, two of one
// shape and one of another: each is a view calling a reader (a table
// macro holding the read_csv options, so that the view's own definition
// is only the copy's path), the two of one shape share theirs, each reads
// its own rows, a reload of another shape drops the reader nothing uses
// any more, a query cannot call a reader itself, and the Sweep at open
// drops a reader left without a dataset.
func TestFilesOfOneShapeShareAReader(t *testing.T) {
	dir := t.TempDir()
	ws := t.TempDir()
	w, err := workspace.Open(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Close() }()
	files := map[string]string{
		"north.csv": "day,store,amount\n2024-01-01,north,10.5\n2024-01-02,north,11\n",
		"south.csv": "day,store,amount\n2024-01-01,south,3.5\n",
		"other.csv": "id,label\n1,x\n2,y\n3,z\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	north := loadOne(t, w, filepath.Join(dir, "north.csv"))
	south := loadOne(t, w, filepath.Join(dir, "south.csv"))
	other := loadOne(t, w, filepath.Join(dir, "other.csv"))
	if north.Reader == "" || north.Reader != south.Reader || other.Reader == "" || other.Reader == north.Reader {
		t.Fatalf("readers %q, %q, %q; want one shared by north and south, another for other", north.Reader, south.Reader, other.Reader)
	}
	if got, want := readers(t, w), []string{north.Reader, other.Reader}; !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("macros %q, want %q", got, want)
	}
	for _, v := range []string{"north", "south", "other"} {
		if sql := viewSQL(t, w, v); strings.Contains(sql, "columns") || !strings.Contains(sql, "_loupe.csv_") {
			t.Errorf("view %s is %s; want a reader's call with the copy's path", v, sql)
		}
	}
	if got := rows(t, w, "SELECT sum(amount)::VARCHAR FROM north UNION ALL SELECT sum(amount)::VARCHAR FROM south UNION ALL SELECT count(*)::VARCHAR FROM other"); got[0][0] != "21.5" || got[1][0] != "3.5" || got[2][0] != "3" {
		t.Errorf("rows through the readers: %v, want 21.5, 3.5 and 3", got)
	}

	// other.csv gains a column: its reload reads through a new reader
	// and the old one, unused, goes.
	if err := os.WriteFile(filepath.Join(dir, "other.csv"), []byte("id,label,weight\n1,x,0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	again := loadOne(t, w, filepath.Join(dir, "other.csv"))
	if again.Reader == "" || again.Reader == other.Reader {
		t.Fatalf("reload of another shape: reader %q, was %q", again.Reader, other.Reader)
	}
	if got, want := readers(t, w), []string{north.Reader, again.Reader}; !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("after the reload: macros %q, want %q", got, want)
	}

	// A query may not call a reader: it would read any file it is given.
	_, err = w.Query.Run(context.Background(), "SELECT * FROM _loupe."+north.Reader+"('/etc/passwd')", query.Limits{})
	if err == nil || !strings.Contains(err.Error(), "not a table function Loupe allows") {
		t.Errorf("a query calling a reader: %v, want the guard's refusal", err)
	}

	// A reader no dataset reads through (a killed load's) is dropped
	// by the Sweep that a killed load's staging view sets off at open.
	err = w.Engine.Write(context.Background(), func(c *duckdb.Conn) error {
		for _, q := range []string{
			"CREATE MACRO _loupe.csv_00000000000000000000(path) AS TABLE SELECT * FROM read_csv(path)",
			"CREATE VIEW _loupe_loading_lost AS SELECT 1 AS x",
		} {
			if _, err := c.ExecContext(context.Background(), q, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w, err = workspace.Open(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	if got, want := readers(t, w), []string{north.Reader, again.Reader}; !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("after the sweep: macros %q, want %q", got, want)
	}
	if got := rows(t, w, "SELECT count(*) FROM north"); got[0][0] != int64(2) {
		t.Errorf("north after the sweep: %v rows, want 2", got)
	}
}

// TestAHeaderCannotRunSQL loads small CSVs whose header names are SQL
// meant to end the view's definition and run a statement of their own
// (DuckDB's sniff_csv writes them unescaped in its Prompt, which views
// were once made of: the first of these created a table at load). Each
// loads as a view whose columns are named exactly as the header, reads
// its rows, and nothing else appears in the workspace.
func TestAHeaderCannotRunSQL(t *testing.T) {
	w := openWS(t)
	dir := t.TempDir()
	headers := []string{
		`"x': 'BIGINT'}, parallel=false); CREATE TABLE pwned AS SELECT 42 AS v; --"`,
		`"x': 'BIGINT'}) UNION ALL SELECT 7, 8 --"`,
		`"it's","a\b","{}"`,
	}
	for i, h := range headers {
		p := filepath.Join(dir, "odd"+strconv.Itoa(i)+".csv")
		n := strings.Count(h, `","`) + 1
		row := strings.TrimSuffix(strings.Repeat("1,", n), ",")
		if err := os.WriteFile(p, []byte(h+"\n"+row+"\n"+row+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		d := loadOne(t, w, p)
		var names []string
		for _, c := range d.Columns {
			names = append(names, `"`+c.Name+`"`)
		}
		if got := strings.Join(names, ","); got != h || d.Storage != "view" || d.Rows != 2 {
			t.Errorf("%s: columns %s, %s of %d rows; want the header's names, a view of 2 rows", h, got, d.Storage, d.Rows)
		}
		if got := rows(t, w, "SELECT count(*) FROM "+d.Name); got[0][0] != int64(2) {
			t.Errorf("%s: %v rows read, want 2", h, got[0][0])
		}
	}
	got := rows(t, w, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1")
	if len(got) != len(headers) {
		t.Errorf("objects in the workspace: %v; want only the %d datasets", got, len(headers))
	}
}
