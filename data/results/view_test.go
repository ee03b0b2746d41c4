package results_test

import (
	"errors"
	"testing"

	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/results"
)

var viewCols = []query.Column{{Name: `a"b`, Type: "VARCHAR"}, {Name: "n", Type: "DECIMAL(10,2)"}, {Name: "d", Type: "INTERVAL"}}

func TestViewSQLQuotesEverything(t *testing.T) {
	v := results.View{Filters: []results.Filter{{Column: `a"b`, Op: "contains", Value: "O'K"}, {Column: "n", Op: ">=", Value: " 1e2 "}},
		Sort: []results.Order{{Column: "n", Desc: true}}}
	got, err := v.SQL("SELECT 1;", viewCols)
	if err != nil {
		t.Fatal(err)
	}
	want := "SELECT * FROM (\nSELECT 1\n) AS loupe_view\nWHERE contains(lower(CAST(\"a\"\"b\" AS VARCHAR)), 'o''k')\n  AND \"n\" >= 100\nORDER BY \"n\" DESC NULLS LAST"
	if got != want {
		t.Errorf("SQL\n%s\nwant\n%s", got, want)
	}
}

func TestViewRefusesWhatDoesNotFit(t *testing.T) {
	for _, v := range []results.View{
		{Sort: []results.Order{{Column: "nope"}}},
		{Filters: []results.Filter{{Column: "n", Op: "LIKE", Value: "1"}}},
		{Filters: []results.Filter{{Column: "d", Op: ">", Value: "1"}}}, // an interval is not a number
		{Filters: []results.Filter{{Column: "n", Op: "<", Value: "1 OR 1=1"}}},
		{Filters: []results.Filter{{Column: "n", Op: "<", Value: "NaN"}}},
	} {
		if _, err := v.Apply(viewCols, nil); !errors.Is(err, results.ErrView) {
			t.Errorf("%+v: %v, want ErrView", v, err)
		}
	}
}

func TestSummarize(t *testing.T) {
	e := &results.Entry{Columns: []query.Column{{Name: "s", Type: "VARCHAR"}, {Name: "x", Type: "HUGEINT"}},
		Rows: [][]any{{"a", int64(2)}, {"a", nil}, {nil, "170141183460469231731687303715884105727"}, {"b", int64(-4)}}, Total: 10, Truncated: true}
	s := results.Summarize(e)
	if !s.Partial || s.Rows != 4 || s.Total != 10 {
		t.Errorf("summary %+v: want partial 4 of 10", s)
	}
	c0, c1 := s.Columns[0], s.Columns[1]
	if c0.Count != 3 || c0.Nulls != 1 || c0.Distinct != 2 || c0.Min != nil {
		t.Errorf("text column %+v", c0)
	}
	if c1.Count != 3 || c1.Nulls != 1 || c1.Distinct != 3 || *c1.Min != -4 || *c1.Max < 1.7e38 {
		t.Errorf("number column %+v (min %v max %v)", c1, *c1.Min, *c1.Max)
	}
}
