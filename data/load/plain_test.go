package load_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

// duckRead returns what DuckDB's own read_csv, every option detected,
// makes of the file at path: its column types and its rows as text,
// sorted. It runs in a DuckDB of its own, outside the workspace.
func duckRead(t *testing.T, path string) ([]string, []string) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	from := "read_csv('" + strings.ReplaceAll(path, "'", "''") + "', hive_partitioning = false)"
	types := queryStrings(t, db, "SELECT column_type FROM (DESCRIBE SELECT * FROM "+from+")")
	return types, queryStrings(t, db, "SELECT x::VARCHAR FROM "+from+" AS x ORDER BY 1")
}

func queryStrings(t *testing.T, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, q string) []string {
	t.Helper()
	rs, err := db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		var s sql.NullString
		if err := rs.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s.String)
	}
	return out
}

// TestPlainCSVReadAsDuckDBReadsIt loads small plain CSV and TSV files of
// every common type (read as a view over a copy, sniffed once with the
// dialect given) and checks each dataset has the types and rows DuckDB's
// own read_csv, detecting everything, gives the same file.
func TestPlainCSVReadAsDuckDBReadsIt(t *testing.T) {
	w := openWS(t)
	dir := t.TempDir()
	files := map[string]string{
		"types.csv": "id,name,amount,day,at,flag,clock,neg\n" +
			"1,north store,10.5,2024-01-02,2024-01-02 10:00:00,true,12:30:00,-3\n" +
			"2,,,2024-02-29,2024-02-29 23:59:59,false,00:00:01,-4\n" +
			"3,south,7,,,,,5\n",
		"leading_zeros.csv": "code,qty\n007,1\n010,2\n",
		"crlf.csv":          "a,b\r\n1,x\r\n2,y\r\n",
		"spaces.csv":        "a,b\n 1 ,  padded \n2,x\n",
		"tabs.tsv":          "id\tnote\n1\ta b and c\n2\t1.5\n",
		"ints_as_text.csv":  "zip,city\n01234,Turin\n98765,Lyon\n",
		"no_newline.csv":    "a,b\n1,2",
	}
	for name, text := range files {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			d := loadOne(t, w, p)
			if d.Storage != "view" || filepath.Dir(d.Staged) != w.Engine.ImportDir() || !d.Profiled || len(d.Warnings) > 0 {
				t.Errorf("storage %q over %q, profiled %v, warnings %q; want a profiled view over a copy in the import folder, no warnings", d.Storage, d.Staged, d.Profiled, d.Warnings)
			}
			wantTypes, wantRows := duckRead(t, p)
			var types []string
			for _, c := range d.Columns {
				types = append(types, c.Type)
			}
			if !slices.Equal(types, wantTypes) {
				t.Errorf("types %q, DuckDB's read_csv %q", types, wantTypes)
			}
			var got []string
			for _, r := range rows(t, w, "SELECT x::VARCHAR FROM "+d.Name+" AS x ORDER BY 1") {
				got = append(got, fmt.Sprint(r[0]))
			}
			if !slices.Equal(got, wantRows) || int64(len(got)) != d.Rows {
				t.Errorf("rows %q (%d recorded), DuckDB's read_csv %q", got, d.Rows, wantRows)
			}
		})
	}
}

// TestPlainCSVFallsBackToTheTable loads small plain files that the view
// cannot take as they are, and checks each gets what the table path
// gives: types detected over the whole file when a value past DuckDB's
// sample does not fit, numbers written with separators read as numbers,
// a missing header said, duplicate names renamed with a warning.
func TestPlainCSVFallsBackToTheTable(t *testing.T) {
	w := openWS(t)
	dir := t.TempDir()
	var late strings.Builder
	late.WriteString("id,v\n")
	for i := range 21000 { // past the sniffer's sample of 20,480 rows
		fmt.Fprintf(&late, "%d,%d\n", i, i%10)
	}
	late.WriteString("21000,ten\n")
	for _, tc := range []struct {
		file, text string
		warning    string
		check      func(t *testing.T, d catalog.Dataset)
	}{
		{"late.csv", late.String(), "detected from the whole file", func(t *testing.T, d catalog.Dataset) {
			if d.Rows != 21001 || d.Columns[1].Type != "VARCHAR" {
				t.Errorf("%d rows, v is %s; want 21001 rows, v VARCHAR", d.Rows, d.Columns[1].Type)
			}
		}},
		{"eu.csv", "id,amount\n1,1.234.567\n2,2.000.000\n", "read as numbers", func(t *testing.T, d catalog.Dataset) {
			if d.Columns[1].Type != "DOUBLE" {
				t.Errorf("amount is %s, want DOUBLE", d.Columns[1].Type)
			}
		}},
		{"noheader.csv", "1,2\n3,4\n5,6\n", "no header row", nil},
		{"dups.csv", "a,a\n1,2\n", "renamed", nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			p := filepath.Join(dir, tc.file)
			if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			d := loadOne(t, w, p)
			if !strings.Contains(strings.Join(d.Warnings, "; "), tc.warning) {
				t.Errorf("warnings %q; want one saying %q", d.Warnings, tc.warning)
			}
			if d.Storage != "table" {
				t.Errorf("storage %q, want a table (it loaded with a warning)", d.Storage)
			}
			if tc.check != nil {
				tc.check(t, d)
			}
		})
	}
	// Nothing of the attempts is left: one copy per view, none here.
	entries, err := os.ReadDir(w.Engine.ImportDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			t.Errorf("import folder holds %s after loads that all became tables", e.Name())
		}
	}
}

// TestPlainCSVCancelLeavesNothing cancels the load of a small plain CSV
// while it is being profiled, inside its one transaction, both for a new
// file and for a reload: the new dataset does not appear, the reloaded
// one stays as it was, over its old copy, and no new copy is left.
func TestPlainCSVCancelLeavesNothing(t *testing.T) {
	w := openWS(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "daily.csv")
	if err := os.WriteFile(p, []byte("store,amount\nnorth,1\nsouth,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cancelled := func(path string) error {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, err := w.Loader.Load(ctx, path, load.Options{Progress: func(pr load.Progress) {
			if pr.Phase == "profiling" {
				cancel()
			}
		}})
		return err
	}
	if err := cancelled(p); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled load: %v, want context.Canceled", err)
	}
	if ds, _ := w.Datasets(context.Background()); len(ds) != 0 {
		t.Errorf("after a cancelled first load: %d datasets, want none", len(ds))
	}
	if n := importFiles(t, w); n != 0 {
		t.Errorf("after a cancelled first load the import folder holds %d files, want none", n)
	}

	d := loadOne(t, w, p)
	if err := os.WriteFile(p, []byte("store,amount\nwest,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cancelled(p); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled reload: %v, want context.Canceled", err)
	}
	got := rows(t, w, "SELECT string_agg(store, ',' ORDER BY store) FROM daily")
	if got[0][0] != "north,south" {
		t.Errorf("after a cancelled reload daily holds %v, want the first load's north,south", got[0][0])
	}
	if n := importFiles(t, w); n != 1 {
		t.Errorf("after a cancelled reload the import folder holds %d files, want the first load's copy only", n)
	}
	if _, err := os.Stat(d.Staged); err != nil {
		t.Errorf("the first load's copy: %v", err)
	}
}

func importFiles(t *testing.T, w *workspace.Workspace) int {
	t.Helper()
	entries, err := os.ReadDir(w.Engine.ImportDir())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			n++
		}
	}
	return n
}

// TestWorkspaceUnderKeyValueFolder opens a workspace inside a folder
// named like a hive partition (year=2024): DuckDB guessed a column
// "year" from the path of every file it read there, so every dataset
// had one the file does not have.
func TestWorkspaceUnderKeyValueFolder(t *testing.T) {
	ctx := context.Background()
	w, err := workspace.Open(ctx, filepath.Join(t.TempDir(), "year=2024", "ws"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	dir := t.TempDir()
	var big strings.Builder
	big.WriteString("id,label\n")
	for i := 0; big.Len() <= load.SmallText; i++ {
		fmt.Fprintf(&big, "%d,\"label, %d\"\n", i, i)
	}
	files := map[string]string{
		"small.csv":  "store,amount\nnorth,1\n",
		"quoted.csv": "store,amount\n\"north, east\",1\n",
		"big.csv":    big.String(),
		"rows.json":  `[{"store": "north", "amount": 1}]`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := w.Loader.Load(ctx, p, load.Options{})
		if err != nil {
			t.Fatalf("load %s: %v", name, err)
		}
		for _, c := range ds[0].Columns {
			if c.Name == "year" {
				t.Errorf("%s (%s): a column year from the workspace's path", name, ds[0].Storage)
			}
		}
	}
}
