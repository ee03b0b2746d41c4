package sqltool_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/tools/sqltool"
)

func TestPreviewCells(t *testing.T) {
	res := &query.Result{
		Columns: []query.Column{{Name: "v", Type: "ANY"}},
		Rows: [][]any{
			{nil}, {""}, {"a|b"}, {"two\nlines"}, {0.1 + 0.2}, {int64(42)}, {true},
			{[]any{int64(1), "x"}}, {map[string]any{"k": int64(1)}}, {strings.Repeat("é", 200)}, {"NULL"},
		},
	}
	res.RowCount = int64(len(res.Rows))
	lines := strings.Split(strings.TrimSpace(sqltool.Preview(res, 30, 8192)), "\n")
	want := []string{"11 rows × 1 column: v ANY", "v", "NULL", `""`, `a\|b`, `two\nlines`, "0.3", "42", "true",
		`[1,"x"]`, `{"k":1}`, strings.Repeat("é", 79) + "…", "NULL"}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d: %q, want %q", i, lines[i], want[i])
		}
	}
}

func TestPreviewCaps(t *testing.T) {
	mk := func(n int, width int) *query.Result {
		r := &query.Result{Columns: []query.Column{{Name: "i", Type: "BIGINT"}, {Name: "s", Type: "VARCHAR"}}, RowCount: int64(n)}
		for i := range n {
			r.Rows = append(r.Rows, []any{int64(i), strings.Repeat("x", width)})
		}
		return r
	}
	tests := []struct {
		name             string
		res              *query.Result
		rows, bytes      int
		wantShown        int
		wantMore         string
		wantNoMoreNotice bool
	}{
		{"all rows fit", mk(5, 3), 30, 8192, 5, "", true},
		{"row cap", mk(100, 3), 30, 8192, 30, "70 more rows not shown (total 100).", false},
		{"byte cap", mk(100, 70), 30, 2048, -1, "more rows not shown (total 100).", false},
		{"one more row", mk(31, 1), 30, 8192, 30, "1 more row not shown (total 31).", false},
		{"held rows fewer than total", func() *query.Result { r := mk(10, 1); r.RowCount = 5000; r.Truncated = true; return r }(), 30, 8192, 10, "4990 more rows not shown (total 5000).", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := sqltool.Preview(tc.res, tc.rows, tc.bytes)
			if len(out) > tc.bytes {
				t.Fatalf("%d bytes, cap %d", len(out), tc.bytes)
			}
			shown := strings.Count(out, " | x") // data lines only
			if tc.wantShown >= 0 && shown != tc.wantShown {
				t.Fatalf("%d rows shown, want %d:\n%s", shown, tc.wantShown, out)
			}
			if tc.wantShown < 0 {
				if shown == 0 || shown >= tc.rows {
					t.Fatalf("byte cap: %d rows shown", shown)
				}
				want := fmt.Sprintf("%d more rows not shown", tc.res.RowCount-int64(shown))
				if !strings.Contains(out, want) {
					t.Fatalf("missing %q:\n%s", want, out)
				}
			}
			if tc.wantMore != "" && !strings.Contains(out, tc.wantMore) {
				t.Fatalf("missing %q:\n%s", tc.wantMore, out)
			}
			if tc.wantNoMoreNotice && strings.Contains(out, "not shown") {
				t.Fatalf("says rows are hidden when none are:\n%s", out)
			}
		})
	}
}

func TestPreviewEmpty(t *testing.T) {
	res := &query.Result{Columns: []query.Column{{Name: "region", Type: "VARCHAR"}}, Rows: [][]any{}}
	out := sqltool.Preview(res, 30, 8192)
	if !strings.HasPrefix(out, "The query returned 0 rows") || !strings.Contains(out, "region VARCHAR") {
		t.Fatalf("empty preview:\n%s", out)
	}
}

// A row too wide for the byte cap is not shown half; the text says why.
func TestPreviewRowTooWide(t *testing.T) {
	res := &query.Result{RowCount: 2}
	var row []any
	for i := range 40 {
		res.Columns = append(res.Columns, query.Column{Name: fmt.Sprintf("c%d", i), Type: "VARCHAR"})
		row = append(row, strings.Repeat("y", 80))
	}
	res.Rows = [][]any{row, row}
	out := sqltool.Preview(res, 30, 2048)
	if len(out) > 2048 || !strings.Contains(out, "No rows shown") || !strings.Contains(out, "2 more rows not shown (total 2)") {
		t.Fatalf("%d bytes:\n%s", len(out), out)
	}
}

// Very wide results list their first columns and say how many are left.
func TestPreviewManyColumns(t *testing.T) {
	res := &query.Result{RowCount: 1, Rows: [][]any{make([]any, 45)}}
	for i := range 45 {
		res.Columns = append(res.Columns, query.Column{Name: fmt.Sprintf("c%d", i), Type: "INTEGER"})
	}
	out := sqltool.Preview(res, 30, 8192)
	if !strings.Contains(out, "1 row × 45 columns") || !strings.Contains(out, "and 5 more columns not shown") {
		t.Fatalf("%s", out)
	}
	if strings.Contains(out, "c40") {
		t.Fatalf("column c40 should not be shown:\n%s", out)
	}
}
