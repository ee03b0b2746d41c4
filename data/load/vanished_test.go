package load_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// sheetsWorkbook writes dir/book.xlsx with one sheet per name, each with
// a header and rows rows of that sheet's name.
func sheetsWorkbook(t *testing.T, dir string, rows int, sheets ...string) string {
	return writeWorkbook(t, dir, "book.xlsx", func(f *excelize.File) {
		for i, s := range sheets {
			if i == 0 {
				must(t, f.SetSheetName("Sheet1", s))
			} else if _, err := f.NewSheet(s); err != nil {
				t.Fatal(err)
			}
			must(t, f.SetCellValue(s, "A1", "label"))
			for r := 2; r <= rows+1; r++ {
				must(t, f.SetCellValue(s, fmt.Sprintf("A%d", r), s))
			}
		}
	})
}

// sqliteFile creates path with one two-row table per name.
func sqliteFile(t *testing.T, path string, tables ...string) {
	t.Helper()
	var stmts []string
	for _, name := range tables {
		stmts = append(stmts, "CREATE TABLE "+name+" (id INTEGER, label TEXT)",
			"INSERT INTO "+name+" VALUES (1, '"+name+"'), (2, '"+name+"')")
	}
	sqliteExec(t, path, stmts...)
}

// catalogNames lists the datasets recorded in w's catalog.
func catalogNames(t *testing.T, w *workspace.Workspace) []string {
	t.Helper()
	list, err := catalog.List(context.Background(), w.Engine.DB())
	if err != nil {
		t.Fatal(err)
	}
	return names(list)
}

func mainTables(t *testing.T, w *workspace.Workspace) []string {
	t.Helper()
	var out []string
	for _, r := range queryAll(t, w, "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' AND database_name = current_database() ORDER BY 1") {
		out = append(out, r[0])
	}
	return out
}

// TestReloadRemovesVanishedParts reloads a workbook and a SQLite file
// after a sheet or table was deleted from them: its dataset (table and
// record) is removed, the remaining one refreshed, and the removal is
// reported in the load's warnings.
func TestReloadRemovesVanishedParts(t *testing.T) {
	tests := []struct {
		name         string
		make, shrink func(t *testing.T, dir string) string
		before       []string
		after        []string
		warning      string
	}{
		{
			name:    "xlsx",
			make:    func(t *testing.T, dir string) string { return sheetsWorkbook(t, dir, 2, "A", "B") },
			shrink:  func(t *testing.T, dir string) string { return sheetsWorkbook(t, dir, 3, "A") },
			before:  []string{"book_a", "book_b"},
			after:   []string{"book_a"},
			warning: "sheet 'B' is no longer in the file: its table book_b was removed",
		},
		{
			name: "sqlite",
			make: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "shop.db")
				sqliteFile(t, p, "orders", "returns")
				return p
			},
			shrink: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "shop.db")
				sqliteExec(t, p, "DROP TABLE returns", "INSERT INTO orders VALUES (3, 'orders')")
				return p
			},
			before:  []string{"orders", "returns"},
			after:   []string{"orders"},
			warning: "table 'returns' is no longer in the file: its table returns was removed",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := openWS(t)
			dir := t.TempDir()
			path := tc.make(t, dir)
			ds, err := w.Loader.Load(context.Background(), path, load.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(names(ds), ","); got != strings.Join(tc.before, ",") {
				t.Fatalf("first load made %s, want %v", got, tc.before)
			}
			if got := tc.shrink(t, dir); got != path {
				t.Fatalf("rewrote %s, want %s", got, path)
			}
			ds, err = w.Loader.Load(context.Background(), path, load.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(names(ds), ","); got != strings.Join(tc.after, ",") {
				t.Fatalf("reload made %s, want %v", got, tc.after)
			}
			if !ds[0].Profiled {
				t.Errorf("%s is not marked profiled after the reload", ds[0].Name)
			}
			if ds[0].Rows != 3 {
				t.Errorf("%s has %d rows after the reload, want 3", ds[0].Name, ds[0].Rows)
			}
			if !contains(ds[0].Warnings, tc.warning) {
				t.Errorf("reload warnings %q lack %q", ds[0].Warnings, tc.warning)
			}
			if got := strings.Join(catalogNames(t, w), ","); got != strings.Join(tc.after, ",") {
				t.Errorf("catalog holds %s after the reload, want %v", got, tc.after)
			}
			if got := strings.Join(mainTables(t, w), ","); got != strings.Join(tc.after, ",") {
				t.Errorf("workspace tables %s after the reload, want %v", got, tc.after)
			}
			stored, err := catalog.Get(context.Background(), w.Engine.DB(), tc.after[0])
			if err != nil {
				t.Fatal(err)
			}
			if !contains(stored.Warnings, tc.warning) {
				t.Errorf("stored warnings %q lack %q", stored.Warnings, tc.warning)
			}
		})
	}
}

// TestFailedReloadKeepsVanishedParts cancels a reload of a workbook that
// lost sheet B (and gained C) while its second table is being made: the
// reload is rolled back, so A and B remain as the first load made them.
func TestFailedReloadKeepsVanishedParts(t *testing.T) {
	w := openWS(t)
	dir := t.TempDir()
	path := sheetsWorkbook(t, dir, 2, "A", "B")
	if _, err := w.Loader.Load(context.Background(), path, load.Options{}); err != nil {
		t.Fatal(err)
	}
	sheetsWorkbook(t, dir, 5, "A", "C")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := w.Loader.Load(ctx, path, load.Options{Progress: cancelAtSecondTable(cancel).progress})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled reload: got %v, want context.Canceled", err)
	}
	want := "book_a,book_b"
	if got := strings.Join(catalogNames(t, w), ","); got != want {
		t.Errorf("catalog holds %s after a failed reload, want %s", got, want)
	}
	if got := strings.Join(mainTables(t, w), ","); got != want {
		t.Errorf("workspace tables %s after a failed reload, want %s", got, want)
	}
	for _, table := range []string{"book_a", "book_b"} {
		if got := queryAll(t, w, "SELECT count(*) FROM "+table); got[0][0] != "2" {
			t.Errorf("%s has %s rows after a failed reload, want the first load's 2", table, got[0][0])
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
