package refs

import (
	"strings"
	"testing"
)

func TestFill(t *testing.T) {
	rs := Results{
		Tables: map[string]Table{"q2": {Columns: []string{"region", "Total Sales", "n"}, Rows: [][]any{{"North", 1234.5, int64(7)}, {"South", float64(99), nil}}, Total: 40}},
		Charts: map[string]bool{"c1": true},
	}
	for _, tc := range []struct{ in, want string }{
		{"Top: {{q2.region[0]}} with {{q2.n[0]}}", "Top: North with 7"},
		{"{{ q2.\"Total Sales\"[0] }} and {{q2.total sales[1]}}", "1234.5 and {{q2.total sales[1]}}"},
		{"case: {{q2.REGION[1]}}", "case: South"},
		{"whole numbers: {{q2.Total Sales[1]}}", "whole numbers: {{q2.Total Sales[1]}}"},
		{"null: {{q2.n[1]}}", "null: NULL"},
		{"past the rows: {{q2.n[2]}}", "past the rows: [unknown reference q2.n[2]]"},
		{"no column: {{q2.x[0]}}", "no column: [unknown reference q2.x[0]]"},
		{"no result: {{q9.total[0]}}", "no result: [unknown reference q9.total[0]]"},
		{"chart {{c1}}, none {{c4}}", "chart (chart c1), none [unknown reference c4]"},
		{"report's own {{chart:c1}} {{table:q2}}", "report's own {{chart:c1}} {{table:q2}}"},
	} {
		if got := Fill(tc.in, rs); got != tc.want {
			t.Errorf("Fill(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	table := Fill("{{q2}}", rs)
	for _, want := range []string{"| region | Total Sales | n |", "| North | 1234.5 | 7 |", "| South | 99 | NULL |", "(38 more rows)"} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
	if got := FillCells("{{q2}} {{c1}} {{q2.n[0]}}", rs); got != "{{q2}} {{c1}} 7" {
		t.Errorf("FillCells = %q", got)
	}
	if got := Fill(Cell("q2", "Total Sales", 0)+" "+Cell("q2", "n", 0), rs); got != "1234.5 7" {
		t.Errorf("Cell's references must resolve: %q", got)
	}
	if !Has("a {{q1.x[0]}}") || Has("a {{chart:c1}}") || Has("none") {
		t.Error("Has")
	}
}

func TestMarkdownCaps(t *testing.T) {
	tb := Table{Columns: []string{"a|b"}}
	for i := 0; i < 30; i++ {
		tb.Rows = append(tb.Rows, []any{int64(i)})
	}
	md := Markdown(tb)
	if strings.Count(md, "\n| ") != MaxTableRows+2 || !strings.Contains(md, "(10 more rows)") || !strings.Contains(md, `a\|b`) {
		t.Errorf("markdown:\n%s", md)
	}
}
