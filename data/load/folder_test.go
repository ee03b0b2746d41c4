package load_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/load"
)

func writeIn(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFolder lists a folder's data files and refuses folders with none.
func TestFolder(t *testing.T) {
	dir := t.TempDir()
	writeIn(t, dir, "b.csv", "x\n1\n")
	writeIn(t, dir, "a.parquet", "PAR1")
	writeIn(t, dir, "c.tsv.gz", "")
	writeIn(t, dir, "README.md", "notes")
	writeIn(t, dir, ".hidden.csv", "x\n1\n")
	if err := os.Mkdir(filepath.Join(dir, "sub.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	files, skipped, err := load.Folder(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if want := []string{"a.parquet", "b.csv", "c.tsv.gz"}; !reflect.DeepEqual(names, want) || skipped != 3 {
		t.Errorf("Folder = %v, %d skipped; want %v, 3 skipped", names, skipped, want)
	}
	for _, tc := range []struct{ name, path, problem string }{
		{"no data files", filepath.Join(dir, "sub.csv"), "holds no data file"},
		{"a file", filepath.Join(dir, "b.csv"), "not a folder"},
		{"missing", filepath.Join(dir, "nope"), "no such file"},
	} {
		_, _, err := load.Folder(tc.path)
		var fe *load.FileError
		if !errors.As(err, &fe) || !strings.Contains(fe.Problem, tc.problem) || fe.Hint == "" {
			t.Errorf("%s: Folder(%s) = %v, want a FileError saying %q with a hint", tc.name, tc.path, err, tc.problem)
		}
	}
}

// TestLoadFolderAsOne reads a folder's CSVs as one table, matching
// columns by name, and loads it again in place.
func TestLoadFolderAsOne(t *testing.T) {
	w := openWS(t)
	dir := t.TempDir()
	writeIn(t, dir, "jan.csv", "store,amount\nnorth,10\nsouth,20\n")
	writeIn(t, dir, "feb.csv", "amount,store,returned\n30,east,true\n")
	writeIn(t, dir, "notes.md", "not data")
	ds, err := w.Loader.LoadFolder(context.Background(), dir, "Sales 2024", load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].Name != "sales_2024" || ds[0].Rows != 3 || ds[0].Source != dir {
		t.Fatalf("LoadFolder = %+v, want one dataset sales_2024 of 3 rows from %s", ds, dir)
	}
	// notes.md is not a data file: no warning says a CSV was left out.
	for _, w := range ds[0].Warnings {
		if strings.Contains(w, "left out") {
			t.Errorf("warning %q for a folder whose data files are all CSV", w)
		}
	}
	got := rows(t, w, "SELECT source_file, store, amount, returned FROM sales_2024 ORDER BY amount")
	want := [][]any{{"jan.csv", "north", int64(10), nil}, {"jan.csv", "south", int64(20), nil}, {"feb.csv", "east", int64(30), true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows = %v, want %v", got, want)
	}
	writeIn(t, dir, "mar.csv", "store,amount\nwest,40\n")
	ds, err = w.Loader.LoadFolder(context.Background(), dir, "Sales 2024", load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	all, err := w.Datasets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ds[0].Name != "sales_2024" || ds[0].Rows != 4 || len(all) != 1 {
		t.Errorf("loaded again: %s with %d rows, %d datasets; want sales_2024 with 4 rows, alone", ds[0].Name, ds[0].Rows, len(all))
	}
	entries, _ := os.ReadDir(w.Engine.ImportDir())
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			t.Errorf("the import folder keeps %s after the load", e.Name())
		}
	}
	bad := t.TempDir()
	writeIn(t, bad, "a.csv", "x\n1\n")
	writeIn(t, bad, "b.tsv", "x\ty\n1\t2\n")
	_, err = w.Loader.LoadFolder(context.Background(), bad, "mixed", load.Options{})
	var fe *load.FileError
	if !errors.As(err, &fe) || !strings.Contains(fe.Problem, "mixes CSV and TSV") {
		t.Errorf("a folder of CSV and TSV: %v, want a FileError saying it mixes them", err)
	}
}
