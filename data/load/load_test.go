package load_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/workspace"
)

func openWS(t *testing.T) *workspace.Workspace {
	t.Helper()
	w, err := workspace.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

func loadOne(t *testing.T, w *workspace.Workspace, path string) catalog.Dataset {
	t.Helper()
	ds, err := w.Loader.Load(context.Background(), path, load.Options{})
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	if len(ds) != 1 {
		t.Fatalf("load %s: %d datasets, want 1", path, len(ds))
	}
	return ds[0]
}

func rows(t *testing.T, w *workspace.Workspace, q string) [][]any {
	t.Helper()
	res, err := w.Query.Run(context.Background(), q, query.Limits{})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res.Rows
}

func write(t *testing.T, name string, content []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCSVSpectrum compares every csv-spectrum case with its expected JSON.
func TestCSVSpectrum(t *testing.T) {
	w := openWS(t)
	files, _ := filepath.Glob("testdata/csv-spectrum/*.csv")
	if len(files) != 11 {
		t.Fatalf("found %d csv-spectrum files, want 11", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			d := loadOne(t, w, f)
			var want []map[string]string
			raw, err := os.ReadFile(strings.TrimSuffix(f, ".csv") + ".json")
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			got := rows(t, w, fmt.Sprintf(`SELECT * FROM %q`, d.Name))
			if len(got) != len(want) {
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
			for i, wr := range want {
				for j, c := range d.Columns {
					exp, ok := wr[c.Name]
					if !ok {
						t.Fatalf("column %q not in expected %v", c.Name, wr)
					}
					v := got[i][j]
					s := fmt.Sprint(v)
					if v == nil {
						s = ""
					}
					if s != exp {
						t.Errorf("row %d column %s = %q (%s), want %q", i, c.Name, s, c.Type, exp)
					}
				}
			}
		})
	}
}

// TestCSVKitEdgeCases loads every text file of csvkit's examples: each
// loads (maybe with warnings) or fails with a FileError naming the file.
func TestCSVKitEdgeCases(t *testing.T) {
	dir := material(t, "testdata/csv-edge-cases")
	w := openWS(t)
	entries, _ := os.ReadDir(dir)
	loaded := 0
	for _, e := range entries {
		if e.IsDir() || e.Name() == "LICENSE" {
			continue
		}
		path := filepath.Join(dir, e.Name())
		ds, err := w.Loader.Load(context.Background(), path, load.Options{})
		if err != nil {
			var fe *load.FileError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), e.Name()) {
				t.Errorf("%s: error %v is not a FileError naming the file", e.Name(), err)
			}
			continue
		}
		loaded += len(ds)
	}
	if loaded < 70 {
		t.Errorf("only %d datasets loaded from csvkit's examples", loaded)
	}
	checks := []struct {
		file, query string
		want        string
	}{
		{"test_latin1.csv", "SELECT c FROM %s WHERE a = 4", "©"},
		{"test_utf16_little.csv", "SELECT count(*) FROM %s", "2"},
		{"test_utf16_big.csv", "SELECT count(*) FROM %s", "2"},
		{"test_utf8_bom.csv", "SELECT count(*) FROM %s WHERE foo IS NOT NULL", "2"},
		{"dummy.csv.gz", "SELECT a + b + c FROM %s", "6"},
		{"dummy.csv.bz2", "SELECT a + b + c FROM %s", "6"},
		{"mac_newlines.csv", "SELECT count(*) FROM %s", "2"},
		{"iris.csv", "SELECT count(DISTINCT species) FROM %s", "3"},
		{"testjson_multiline.json", "SELECT sum(a) FROM %s", "2"},
	}
	all, err := w.Datasets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		name := ""
		for _, d := range all {
			if filepath.Base(d.Source) == c.file {
				name = d.Name
			}
		}
		if name == "" {
			t.Errorf("%s was not loaded", c.file)
			continue
		}
		got := rows(t, w, fmt.Sprintf(c.query, `"`+name+`"`))
		if fmt.Sprint(got[0][0]) != c.want {
			t.Errorf("%s: %s = %v, want %s", c.file, c.query, got[0][0], c.want)
		}
	}
}

func TestBadInput(t *testing.T) {
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte((i*7919 + 13) % 251)
	}
	cases := []struct {
		name    string
		path    func(t *testing.T) string
		problem string
	}{
		{"missing", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nope.csv") }, "no such file"},
		{"folder", func(t *testing.T) string { return t.TempDir() }, "folder"},
		{"empty", func(t *testing.T) string { return write(t, "empty.csv", nil) }, "empty"},
		{"blank lines", func(t *testing.T) string { return write(t, "blank.csv", []byte("\n\n")) }, "no data"},
		{"binary garbage", func(t *testing.T) string { return write(t, "data.csv", garbage) }, "binary"},
		{"text named parquet", func(t *testing.T) string { return write(t, "data.parquet", []byte("a,b\n1,2\n")) }, "holds text"},
		{"broken parquet", func(t *testing.T) string {
			return write(t, "x.parquet", append([]byte("PAR1"), garbage...))
		}, "Parquet"},
		{"encrypted workbook", func(t *testing.T) string {
			return write(t, "secret.xlsx", append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, garbage...))
		}, "encrypted"},
		{"old xls", func(t *testing.T) string { return material(t, "testdata/csv-edge-cases/dummy.xls") }, ".xls"},
		{"zip", func(t *testing.T) string { return write(t, "a.zip", append([]byte("PK\x03\x04"), garbage...)) }, "ZIP"},
		{"bad json", func(t *testing.T) string { return write(t, "bad.json", []byte(`[{"a": 1}, {"a": `)) }, "JSON"},
	}
	w := openWS(t)
	keep := loadOne(t, w, write(t, "keep.csv", []byte("x\n1\n2\n")))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.path(t)
			_, err := w.Loader.Load(context.Background(), p, load.Options{})
			var fe *load.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a FileError", err)
			}
			if !strings.Contains(err.Error(), c.problem) || !strings.Contains(err.Error(), filepath.Base(p)) || fe.Hint == "" {
				t.Errorf("message %q should name the file, say %q and give a hint", err, c.problem)
			}
		})
	}
	all, err := w.Datasets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Name != keep.Name {
		t.Errorf("failed loads changed the workspace: %v", all)
	}
	// keep.csv is small: a view (see load.SmallText).
	if got := rows(t, w, "SELECT (SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main') + (SELECT count(*) FROM duckdb_views() WHERE schema_name = 'main' AND NOT internal)"); fmt.Sprint(got[0][0]) != "1" {
		t.Errorf("half-made tables or views left behind: %v tables and views", got[0][0])
	}
}

func TestMessyButLoadable(t *testing.T) {
	cases := []struct {
		name, file, content string
		rows                int64
		warning             string
		check, want         string
	}{
		{"duplicate and empty names", "dup.csv", "id,name,name,\n1,a,b,c\n2,d,e,f\n", 2, "renamed", `SELECT count(*) FROM %s`, "2"},
		{"quoted newline and a ragged row", "qn.csv", "a,b,c\n1,\"multi\nline\",3\n4,5\n6,7,8\n", 3, "1 row had fewer fields than the header and was padded with NULL (first at line 3)", `SELECT count(*) FROM %s WHERE c IS NULL AND b = '5'`, "1"},
		{"ragged rows", "ragged.csv", "a,b,c\n1,2,3\n4,5\n6,7,8\n9\n", 4, "2 rows had fewer fields than the header and were padded with NULL (first at line 3)", `SELECT count(*) FROM %s WHERE c IS NULL`, "2"},
		{"too long rows", "long.csv", "a,b\n1,2\n3,4,5,6\n7,8\n", 3, "column 4 had no name → column4", `SELECT sum(column4) FROM %s`, "6"},
		{"too long rows, said", "long2.csv", "a,b\n1,2\n3,4,5,6\n7,8\n", 3, "1 row had more fields than the header (first at line 3)", `SELECT sum(column3) FROM %s`, "5"},
		{"an empty trailing field is not ragged", "trail.csv", "a,b,c\n1,2,\n3,4,5\n", 2, "", `SELECT count(*) FROM %s WHERE c IS NULL`, "1"},
		{"header only", "header.csv", "a,b,c\n", 0, "no rows", `SELECT count(*) FROM %s`, "0"},
		{"no header row", "nohead.csv", "1,2.5,x\n2,3.5,y\n3,4.5,z\n", 3, "no header row", `SELECT sum(column0) FROM %s`, "6"},
		{"header named like generated names", "gen.csv", "column0,column1\nx,1\ny,2\n", 2, "", `SELECT sum(column1) FROM %s`, "3"},
		{"clean header with a digit suffix", "suffix.csv", "q_1,q_2\n1,2\n", 1, "", `SELECT q_2 FROM %s`, "2"},
		{"mixed encodings", "mixed.csv", "city,n\nZürich,1\nS\xe3o Paulo,2\n", 2, "Latin-1", `SELECT city FROM %s WHERE n = 2`, "São Paulo"},
		{"utf-8 bom", "bom.csv", "\xef\xbb\xbfid,v\n1,x\n", 1, "", `SELECT id FROM %s`, "1"},
		{"csv named json", "data.json", "a,b\n1,2\n", 1, "holds csv", `SELECT b FROM %s`, "2"},
		{"tsv", "t.tsv", "a\tb\n1\thello, world\n", 1, "", `SELECT b FROM %s`, "hello, world"},
		{"ndjson", "e.ndjson", "{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":\"y\"}\n", 2, "", `SELECT sum(a) FROM %s`, "3"},
		{"types change late", "late.csv", "a\n" + strings.Repeat("1\n", 30000) + "oops\n", 30001, "whole file", `SELECT count(*) FROM %s WHERE a = 'oops'`, "1"},
	}
	w := openWS(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := loadOne(t, w, write(t, c.file, []byte(c.content)))
			if d.Rows != c.rows {
				t.Errorf("rows = %d, want %d", d.Rows, c.rows)
			}
			joined := strings.Join(d.Warnings, " | ")
			if c.warning == "" && joined != "" {
				t.Errorf("unexpected warnings: %s", joined)
			}
			if c.warning != "" && !strings.Contains(strings.ToLower(joined), strings.ToLower(c.warning)) {
				t.Errorf("warnings %q should mention %q", joined, c.warning)
			}
			got := rows(t, w, fmt.Sprintf(c.check, `"`+d.Name+`"`))
			if fmt.Sprint(got[0][0]) != c.want {
				t.Errorf("%s = %v, want %s", c.check, got[0][0], c.want)
			}
		})
	}
}

func TestNamesAndRefresh(t *testing.T) {
	w := openWS(t)
	dir := t.TempDir()
	a := filepath.Join(dir, "Q3 Sales (final).csv")
	os.WriteFile(a, []byte("x\n1\n"), 0o644)
	d := loadOne(t, w, a)
	if d.Name != "q3_sales_final" {
		t.Errorf("name = %q", d.Name)
	}
	os.WriteFile(a, []byte("x,y\n1,2\n3,4\n"), 0o644)
	d2 := loadOne(t, w, a)
	if d2.Name != d.Name || d2.Rows != 2 || len(d2.Columns) != 2 {
		t.Errorf("refresh gave %s with %d rows and %d columns", d2.Name, d2.Rows, len(d2.Columns))
	}
	other := filepath.Join(t.TempDir(), "Q3 Sales (final).csv")
	os.WriteFile(other, []byte("z\n9\n"), 0o644)
	if d3 := loadOne(t, w, other); d3.Name != "q3_sales_final_2" {
		t.Errorf("same base name from another folder: %q", d3.Name)
	}
	for in, want := range map[string]string{"order.csv": "order_data", "2024.csv": "t_2024", "InvoiceLine.csv": "invoice_line", "Café-Menü.csv": "cafe_menu"} {
		p := filepath.Join(t.TempDir(), in)
		os.WriteFile(p, []byte("v\n1\n"), 0o644)
		if got := loadOne(t, w, p).Name; got != want {
			t.Errorf("%s → %q, want %q", in, got, want)
		}
	}
	all, _ := w.Datasets(context.Background())
	if len(all) != 6 {
		t.Errorf("%d datasets, want 6", len(all))
	}
}

func TestCatalogStatistics(t *testing.T) {
	w := openWS(t)
	var b strings.Builder
	b.WriteString("id,region,amount,day\n")
	for i := 0; i < 1000; i++ {
		region := []string{"north", "south", "east"}[i%3]
		amount := fmt.Sprint(i)
		if i%10 == 0 {
			amount = ""
		}
		fmt.Fprintf(&b, "%d,%s,%s,2024-01-%02d\n", i, region, amount, 1+i%28)
	}
	d := loadOne(t, w, write(t, "stats.csv", []byte(b.String())))
	col := map[string]catalog.Column{}
	for _, c := range d.Columns {
		col[c.Name] = c
	}
	if d.Rows != 1000 || col["amount"].Nulls != 100 || col["id"].Nulls != 0 {
		t.Errorf("rows %d, amount nulls %d", d.Rows, col["amount"].Nulls)
	}
	if *col["id"].Min != "0" || *col["id"].Max != "999" || *col["day"].Min != "2024-01-01" {
		t.Errorf("min/max: id %s..%s day %s", *col["id"].Min, *col["id"].Max, *col["day"].Min)
	}
	if dv := col["id"].Distinct; dv < 900 || dv > 1000 {
		t.Errorf("approx distinct of id = %d", dv)
	}
	top := col["region"].Top
	if len(top) != 3 || top[0].Value != "north" || top[0].Count != 334 {
		t.Errorf("top regions = %+v", top)
	}
	if col["region"].Type != "VARCHAR" || col["day"].Type != "DATE" || len(col["region"].Samples) == 0 {
		t.Errorf("types/samples: %+v", col)
	}
	again, err := catalog.Get(context.Background(), w.Engine.DB(), d.Name)
	if err != nil || again.Rows != 1000 || len(again.Columns) != 4 {
		t.Errorf("stored record: %+v, %v", again, err)
	}
}

func TestParquetAndDuckDB(t *testing.T) {
	w := openWS(t)
	pq := filepath.Join(t.TempDir(), "events.parquet")
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("COPY (SELECT range AS id, range %% 7 AS k FROM range(5000)) TO '%s' (FORMAT parquet)", pq)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	d := loadOne(t, w, pq)
	if d.Storage != "view" || d.Rows != 5000 {
		t.Errorf("parquet dataset %+v", d)
	}
	if got := rows(t, w, "SELECT sum(k) FROM events"); fmt.Sprint(got[0][0]) != "14995" {
		t.Errorf("sum = %v", got[0][0])
	}

	nyc := threeTableDuckDB(t)
	ds, err := w.Loader.Load(context.Background(), nyc, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 3 {
		t.Fatalf("nyc.duckdb gave %d datasets", len(ds))
	}
	for _, d := range ds {
		if d.Rows != 1000 {
			t.Errorf("%s has %d rows", d.Name, d.Rows)
		}
	}
	got := rows(t, w, "SELECT count(*) FROM taxi")
	if fmt.Sprint(got[0][0]) != "1000" {
		t.Errorf("taxi count %v", got[0][0])
	}
	// The attachment is restored when the workspace is opened again.
	dir := w.Engine.Dir()
	w.Close()
	w2, err := workspace.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if got := rows(t, w2, "SELECT count(*) FROM taxi"); fmt.Sprint(got[0][0]) != "1000" {
		t.Errorf("after reopen: %v", got[0][0])
	}
}

func TestProgressAndCancel(t *testing.T) {
	w := openWS(t)
	var b strings.Builder
	b.WriteString("a,b,c\n")
	for i := 0; i < 2000000; i++ {
		fmt.Fprintf(&b, "%d,%d,name %d\n", i, i*3, i%1000)
	}
	big := write(t, "big.csv", []byte(b.String()))
	var calls, withPercent atomic.Int64
	_, err := w.Loader.Load(context.Background(), big, load.Options{Progress: func(p load.Progress) {
		calls.Add(1)
		if p.Percent > 0 {
			withPercent.Add(1)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() < 2 || withPercent.Load() < 1 {
		t.Errorf("progress called %d times (%d with a percentage)", calls.Load(), withPercent.Load())
	}

	// Cancel while DuckDB reads the file: the whole load must roll back.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	other := write(t, "other.csv", []byte(b.String()))
	_, err = w.Loader.Load(ctx, other, load.Options{Progress: func(p load.Progress) {
		if p.Phase == "reading" {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled load: %v", err)
	}
	if got := rows(t, w, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'other'"); fmt.Sprint(got[0][0]) != "0" {
		t.Error("a cancelled load left a table")
	}
}
