package load_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// wideTraces lists what a wide load leaves: the workspace's tables,
// views and records (see leftovers), the databases attached beside it,
// and the files and folders in its import folder.
func wideTraces(t *testing.T, w *workspace.Workspace) []string {
	t.Helper()
	var out []string
	for _, q := range []string{
		"SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main'",
		"SELECT view_name FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal",
		"SELECT 'record ' || name FROM _loupe.datasets",
		"SELECT 'attached ' || database_name FROM duckdb_databases() WHERE NOT internal AND database_name <> current_database()",
	} {
		rs, err := w.Engine.DB().Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rs.Next() {
			var s string
			_ = rs.Scan(&s)
			out = append(out, s)
		}
		rs.Close()
	}
	entries, err := os.ReadDir(w.Engine.ImportDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		out = append(out, "file "+e.Name())
	}
	sort.Strings(out)
	return out
}

// TestWideLayout loads a file of 10,000 columns: it is stored in the wide
// layout (a database file of its own, the dataset a view over its
// parts), reads as the table it would have been (every column, in
// order, with its statistics), survives a reopen, and a reload replaces
// the file rather than adding one.
func TestWideLayout(t *testing.T) {
	dir := t.TempDir()
	w, err := workspace.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	path := wideCSV(t, 10000, 4)
	d := loadOne(t, w, path)
	if d.Storage != "view" || d.Attach == "" || !strings.HasSuffix(d.Staged, ".wide.duckdb") {
		t.Fatalf("storage %q, attach %q, staged %q; want a view over a .wide.duckdb file", d.Storage, d.Attach, d.Staged)
	}
	if len(d.Columns) != 10000 || d.Columns[0].Name != "c0" || d.Columns[9999].Name != "c9999" || d.Rows != 4 || !d.Profiled {
		t.Fatalf("%d columns (%s … %s), %d rows, profiled %v", len(d.Columns), d.Columns[0].Name, d.Columns[len(d.Columns)-1].Name, d.Rows, d.Profiled)
	}
	// The file's size is what DuckDB reads as it attaches it, at every
	// open: with the old statistics format (DuckDB's default storage
	// version) these 10,000 columns of 4 rows took 34 MB, now 3 MB.
	if fi, err := os.Stat(d.Staged); err != nil {
		t.Error(err)
	} else if fi.Size() > 8<<20 {
		t.Errorf("the wide file takes %d MB, want under 8 MB (the old statistics format took 34 MB)", fi.Size()>>20)
	}
	for _, i := range []int{0, 499, 500, 9999} {
		if c := d.Columns[i]; c.Distinct != 4 || c.Type != "BIGINT" || c.Min == nil {
			t.Errorf("column %s: type %s, distinct %d, min %v; want BIGINT with statistics", c.Name, c.Type, c.Distinct, c.Min)
		}
	}
	check := func(w *workspace.Workspace) {
		t.Helper()
		got := rows(t, w, "SELECT c0, c500, c9999 FROM "+d.Name+" ORDER BY c0")
		want := "[[0 3 3] [1 4 4] [2 5 5] [3 6 6]]"
		if fmt.Sprint(got) != want {
			t.Errorf("SELECT c0, c500, c9999: %v, want %v (the parts out of line)", got, want)
		}
		if got := rows(t, w, "SELECT count(*) FROM "+d.Name); fmt.Sprint(got) != "[[4]]" {
			t.Errorf("count(*) = %v, want 4", got)
		}
	}
	check(w)
	again := loadOne(t, w, path)
	if again.Name != d.Name || again.Staged == d.Staged {
		t.Errorf("reload: %s in %s, want %s in a new file", again.Name, again.Staged, d.Name)
	}
	want := []string{"attached " + again.Attach, "file " + filepath.Base(again.Staged), "record " + d.Name, d.Name}
	sort.Strings(want)
	if got := wideTraces(t, w); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("after a reload the workspace holds %q, want %q", got, want)
	}
	w.Close()
	w, err = workspace.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	check(w)
}

// TestWideLayoutSweep reopens a workspace with what a wide load killed
// mid-way leaves (a database file no dataset reads, its write-ahead
// log, a folder of parts): the open removes them and keeps the file a
// dataset reads.
func TestWideLayoutSweep(t *testing.T) {
	dir := t.TempDir()
	w, err := workspace.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	d := loadOne(t, w, wideCSV(t, 5200, 3))
	imp := w.Engine.ImportDir()
	w.Close()
	for _, f := range []string{"gone-x1.wide.duckdb", "gone-x1.wide.duckdb.wal", "kept.csv"} {
		if err := os.WriteFile(filepath.Join(imp, f), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(imp, ".wide-gone-x1"), 0o700); err != nil {
		t.Fatal(err)
	}
	w, err = workspace.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	want := []string{"attached " + d.Attach, "file " + filepath.Base(d.Staged), "file kept.csv", "record " + d.Name, d.Name}
	sort.Strings(want)
	if got := wideTraces(t, w); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("after the open the workspace holds %q, want %q", got, want)
	}
	if got := rows(t, w, "SELECT sum(c5199) FROM "+d.Name); fmt.Sprint(got) == "[[<nil>]]" {
		t.Errorf("the kept dataset reads %v", got)
	}
}

// TestWideLayoutCancel cancels wide loads at each stage (reading the
// parts, profiling them): Load returns within a second and leaves
// nothing behind, no view, record, attached database or file.
func TestWideLayoutCancel(t *testing.T) {
	path := wideCSV(t, 10000, 20)
	for _, phase := range []string{"reading", "profiling"} {
		t.Run(phase, func(t *testing.T) {
			w := openWS(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cancelled := make(chan time.Time, 1)
			_, err := w.Loader.Load(ctx, path, load.Options{Progress: func(p load.Progress) {
				if p.Phase == phase && p.Percent != 0 && len(cancelled) == 0 {
					cancelled <- time.Now()
					cancel()
				}
			}})
			returned := time.Now()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("load cancelled while %s: err %v, want context.Canceled", phase, err)
			}
			took := returned.Sub(<-cancelled)
			t.Logf("load returned %s after the cancel", took.Round(time.Millisecond))
			if took > time.Second {
				t.Errorf("load returned %s after the cancel, want < 1s", took)
			}
			if left := wideTraces(t, w); len(left) != 0 {
				t.Errorf("a cancelled load left %v", left)
			}
		})
	}
}

// TestWideLayoutFailureFallsBack loads a wide file DuckDB cannot read in
// parts as it is (a byte that is not UTF-8 in its last part): the wide
// layout fails, leaves nothing behind, and the file loads as one table
// with the Latin-1 repair the table path makes.
func TestWideLayoutFailureFallsBack(t *testing.T) {
	src, err := os.ReadFile(wideCSV(t, 5200, 3))
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(src), "c5199", "c5199\xe9", 1)
	path := write(t, "latin.csv", []byte(bad))
	w := openWS(t)
	d := loadOne(t, w, path)
	if d.Storage != "table" || len(d.Columns) != 5200 || d.Columns[5199].Name != "c5199é" {
		t.Fatalf("storage %q, %d columns, last %q; want a table of 5,200 columns, the last c5199é", d.Storage, len(d.Columns), d.Columns[len(d.Columns)-1].Name)
	}
	if got := wideTraces(t, w); strings.Join(got, "|") != "latin|record latin" {
		t.Errorf("the workspace holds %q, want only the table and its record", got)
	}
}
