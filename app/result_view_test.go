package app_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/app"
)

// allRows pages through the whole result ref.
func allRows(t *testing.T, a *app.App, ref string, n int) [][]any {
	t.Helper()
	var out [][]any
	for off := 0; off < n; off += 1000 {
		p, err := a.Page(ref, off, 1000)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Rows...)
	}
	return out
}

// TestViewResultMatchesDuckDB: a result held whole is sorted and filtered
// in memory exactly as DuckDB sorts and filters the same query (NULLs
// last, ties by several columns, contains in any case, numeric ranges).
func TestViewResultMatchesDuckDB(t *testing.T) {
	e := newEnv(t, setup{})
	const base = `SELECT range AS n, CASE WHEN range % 11 = 0 THEN NULL ELSE range % 7 END AS m,
		'Item ' || range AS s, (range * 1.5)::DOUBLE AS x FROM range(3000)`
	res, err := e.app.RunSQL(base)
	if err != nil || res.Truncated {
		t.Fatalf("base: %v %v", res, err)
	}
	for _, tc := range []struct {
		name  string
		view  app.ResultView
		where string
	}{
		{"sort desc with nulls last, then asc", app.ResultView{Sort: []app.SortOrder{{Column: "m", Desc: true}, {Column: "n"}}},
			"ORDER BY m DESC NULLS LAST, n ASC"},
		{"contains any case and a numeric range", app.ResultView{
			Filters: []app.ColumnFilter{{Column: "s", Op: "contains", Value: "iTEm 1"}, {Column: "x", Op: ">=", Value: "150"}, {Column: "x", Op: "<", Value: "2000"}},
			Sort:    []app.SortOrder{{Column: "x", Desc: true}}},
			"WHERE contains(lower(s), 'item 1') AND x >= 150 AND x < 2000 ORDER BY x DESC"},
		{"a comparison drops NULLs", app.ResultView{Filters: []app.ColumnFilter{{Column: "m", Op: "!=", Value: "3"}}},
			"WHERE m != 3 ORDER BY n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.app.ViewResult(res.Ref, tc.view)
			if err != nil {
				t.Fatal(err)
			}
			want, err := e.app.RunSQL("SELECT * FROM (" + base + ") " + tc.where)
			if err != nil {
				t.Fatal(err)
			}
			if got.HeldOnly || got.FromQuery || got.Of != 3000 {
				t.Errorf("a whole result is viewed in memory: %+v", got)
			}
			if got.Result.Rows != want.Rows || got.Result.Ref == res.Ref {
				t.Fatalf("view has %d rows (ref %s), DuckDB %d", got.Result.Rows, got.Result.Ref, want.Rows)
			}
			g, w := allRows(t, e.app, got.Result.Ref, int(got.Result.Rows)), allRows(t, e.app, want.Ref, int(want.Rows))
			if !reflect.DeepEqual(g, w) {
				t.Errorf("view differs from DuckDB: first rows %v vs %v", g[:min(3, len(g))], w[:min(3, len(w))])
			}
		})
	}
}

// TestViewResultOfCutPreviewRunsInDuckDB: a dataset preview holds 1,000 of
// 2,059 rows; sorting it sorts all 2,059 (the largest amount is row 2,059,
// not among the rows held) and a filter counts over all of them.
func TestViewResultOfCutPreviewRunsInDuckDB(t *testing.T) {
	e := newEnv(t, setup{})
	if reps, err := e.app.OpenFiles([]string{writeRows(t, "orders.csv", 2059)}); err != nil || reps[0].Error != nil {
		t.Fatalf("load: %v %v", err, reps)
	}
	pre, err := e.app.PreviewDataset("orders")
	if err != nil || pre.Kept != 1000 || !pre.Truncated {
		t.Fatalf("preview %+v %v: the test needs a cut preview", pre, err)
	}
	v, err := e.app.ViewResult(pre.Ref, app.ResultView{Sort: []app.SortOrder{{Column: "amount", Desc: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if !v.FromQuery || v.HeldOnly || v.Of != 2059 || v.Result.Rows != 2059 {
		t.Errorf("view %+v: want all 2059 rows sorted in DuckDB", v)
	}
	if got := fmt.Sprint(v.Result.Page.Rows[0]); got != "[2059 2059.25]" {
		t.Errorf("first row %s, want the largest amount of the table [2059 2059.25]", got)
	}
	f, err := e.app.ViewResult(pre.Ref, app.ResultView{Filters: []app.ColumnFilter{{Column: "amount", Op: ">", Value: "1500"}}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Result.Rows != 560 {
		t.Errorf("amount > 1500 matched %d rows, want 560 of the table's (not 0 of the rows held)", f.Result.Rows)
	}
	// The summary of the preview says it covers the rows held only.
	s, err := e.app.SummarizeResult(pre.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Partial || s.Rows != 1000 || s.Total != 2059 || *s.Columns[1].Max != 1000.25 {
		t.Errorf("summary %+v (max %v): want partial, 1000 of 2059 rows", s, *s.Columns[1].Max)
	}
}

// TestViewResultRefusesWhatDoesNotFit: an unknown column, an unknown op, a
// comparison on text or with a word are invalid with a message that says
// what to do; an unknown ref is not_found.
func TestViewResultRefusesWhatDoesNotFit(t *testing.T) {
	e := newEnv(t, setup{})
	res, err := e.app.RunSQL("SELECT 1 AS n, 'a' AS s")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ref  string
		view app.ResultView
		code string
	}{
		{res.Ref, app.ResultView{Sort: []app.SortOrder{{Column: "nope"}}}, app.CodeInvalid},
		{res.Ref, app.ResultView{Filters: []app.ColumnFilter{{Column: "n", Op: "LIKE", Value: "1"}}}, app.CodeInvalid},
		{res.Ref, app.ResultView{Filters: []app.ColumnFilter{{Column: "s", Op: ">", Value: "1"}}}, app.CodeInvalid},
		{res.Ref, app.ResultView{Filters: []app.ColumnFilter{{Column: "n", Op: ">", Value: "1; DROP TABLE x"}}}, app.CodeInvalid},
		{"r_gone", app.ResultView{Sort: []app.SortOrder{{Column: "n"}}}, app.CodeNotFound},
	} {
		if _, err := e.app.ViewResult(tc.ref, tc.view); codeOf(t, err) != tc.code {
			t.Errorf("ViewResult(%s, %+v): %v, want %s", tc.ref, tc.view, err, tc.code)
		}
	}
}

// TestViewResultQuotesNamesAndText: a cut preview's view runs as SQL; a
// column name with a quote and a filter text with quotes and a semicolon
// stay one name and one literal.
func TestViewResultQuotesNamesAndText(t *testing.T) {
	e := newEnv(t, setup{})
	var b strings.Builder
	b.WriteString("id,\"say \"\"what\"\"\"\n")
	for i := 1; i <= 1500; i++ {
		word := "plain"
		if i%500 == 0 {
			word = "it's; DROP TABLE t; --"
		}
		fmt.Fprintf(&b, "%d,\"%s\"\n", i, word)
	}
	p := filepath.Join(t.TempDir(), "quotes.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if reps, err := e.app.OpenFiles([]string{p}); err != nil || reps[0].Error != nil {
		t.Fatalf("load: %v %v", err, reps)
	}
	pre, err := e.app.PreviewDataset("quotes")
	if err != nil || !pre.Truncated {
		t.Fatalf("preview %+v %v: the test needs a cut preview", pre, err)
	}
	col := pre.Columns[1].Name
	v, err := e.app.ViewResult(pre.Ref, app.ResultView{Filters: []app.ColumnFilter{{Column: col, Op: "contains", Value: "IT'S; drop"}},
		Sort: []app.SortOrder{{Column: col}, {Column: "id", Desc: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if !v.FromQuery || v.Result.Rows != 3 || fmt.Sprint(v.Result.Page.Rows[0][0]) != "1500" {
		t.Errorf("view %+v: want the 3 rows of the whole table, id 1500 first", v)
	}
}
