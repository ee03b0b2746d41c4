package report

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func byRegion(rows int64, preview ...[]any) Query {
	return Query{Ref: "q1", SQL: "SELECT region, total FROM t", Rows: rows,
		Columns: []Column{{Name: "region", Type: "VARCHAR"}, {Name: "total", Type: "BIGINT"}}, Preview: preview}
}

func TestCompare(t *testing.T) {
	numbersOnly := func(vals ...float64) Query {
		q := Query{Ref: "q2", SQL: "SELECT total FROM t", Rows: int64(len(vals)), Columns: []Column{{Name: "total", Type: "DOUBLE"}}}
		for _, v := range vals {
			q.Preview = append(q.Preview, []any{v})
		}
		return q
	}
	tests := []struct {
		name     string
		old, new []Query
		want     []string
		failed   []string
	}{
		{"same numbers", []Query{byRegion(2, []any{"north", 17.0}, []any{"south", 12.0})},
			[]Query{byRegion(2, []any{"south", 12.0}, []any{"north", 17.0})}, nil, nil},
		{"rows matched by key, whatever their order",
			[]Query{byRegion(2, []any{"north", 17.0}, []any{"south", 12.0})},
			[]Query{byRegion(2, []any{"south", 30.0}, []any{"north", 19.0})},
			[]string{"q1, south, total: 12 → 30", "q1, north, total: 17 → 19"}, nil},
		{"a row that came and one that went",
			[]Query{byRegion(2, []any{"north", 17.0}, []any{"south", 12.0})},
			[]Query{byRegion(2, []any{"north", 17.0}, []any{"east", 4.0})},
			[]string{"q1, east, total: — → 4", "q1, south, total: 12 → —"}, nil},
		{"row count", []Query{byRegion(3, []any{"north", 17.0})}, []Query{byRegion(5, []any{"north", 17.0})},
			[]string{"q1, rows: 3 → 5"}, nil},
		{"no key column: by position", []Query{numbersOnly(1, 2)}, []Query{numbersOnly(1, 2.5)},
			[]string{"q2, row 2, total: 2 → 2.5"}, nil},
		{"a driver's vague type: numbers by their values",
			[]Query{{Ref: "q3", Rows: 1, Columns: []Column{{Name: "genre"}, {Name: "tracks"}}, Preview: [][]any{{"Rock", 1297.0}}}},
			[]Query{{Ref: "q3", Rows: 1, Columns: []Column{{Name: "genre"}, {Name: "tracks"}}, Preview: [][]any{{"Rock", 997.0}}}},
			[]string{"q3, Rock, tracks: 1297 → 997"}, nil},
		{"a query that fails now", []Query{byRegion(1, []any{"north", 17.0})},
			[]Query{{Ref: "q1", SQL: "SELECT region, total FROM t", Error: "Binder Error: no column region"}},
			nil, []string{"q1: Binder Error: no column region"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Compare(&Exploration{Queries: tt.old}, &Exploration{Queries: tt.new})
			var got, failed []string
			for _, n := range c.Numbers {
				got = append(got, n.String())
			}
			for _, f := range c.Failed {
				failed = append(failed, f.Ref+": "+f.Error)
			}
			if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(failed, tt.failed) {
				t.Errorf("numbers %q, failed %q; want %q, %q", got, failed, tt.want, tt.failed)
			}
			if c.None() != (tt.want == nil && tt.failed == nil) {
				t.Errorf("None() = %v", c.None())
			}
		})
	}
}

// A finding no longer holds when a number it states left its evidence
// (queries and charts), or when a query behind it fails.
func TestCompareFlagsFindings(t *testing.T) {
	spec := func(north float64) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"mark": "bar", "data": map[string]any{"values": []any{map[string]any{"region": "north", "total": north}}}})
		return b
	}
	old := Exploration{
		Queries: []Query{byRegion(2, []any{"north", 17.0}, []any{"south", 12.0}), {Ref: "q2", SQL: "SELECT 1", Rows: 1, Columns: []Column{{Name: "n", Type: "INTEGER"}}, Preview: [][]any{{2.0}}}},
		Charts:  []Chart{{Ref: "c1", Spec: spec(17)}},
		Findings: []Finding{
			{Text: "North leads with 17 [q1]", Evidence: []string{"q1"}},
			{Text: "South has 12", Evidence: []string{"q1"}},
			{Text: "North reached 17 on the chart", Evidence: []string{"c1"}},
			{Text: "Two channels", Evidence: []string{"q2"}},
			{Text: "No number here", Evidence: []string{"q1"}},
		},
	}
	new := old
	new.Queries = []Query{byRegion(2, []any{"north", 19.0}, []any{"south", 12.0}), {Ref: "q2", SQL: "SELECT 1", Error: "gone"}}
	new.Charts = []Chart{{Ref: "c1", Spec: spec(19)}}
	c := Compare(&old, &new)
	var got []string
	for _, f := range c.Findings {
		got = append(got, f.Text+": "+f.Why)
	}
	want := []string{
		"North leads with 17: 17 is no longer in the results of q1.",
		"North reached 17 on the chart: 17 is no longer in the results of c1.",
		"Two channels: q2 now fails.",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stale findings:\n%q\nwant\n%q", got, want)
	}
}

// The refreshed markdown opens with "What changed": Loupe's paragraph
// when the model's is missing, every change listed, what was reloaded.
func TestWhatChangedSection(t *testing.T) {
	r := &Report{Title: "Sales", Body: "North leads.\n\n{{table:q1}}\n", Exploration: Exploration{Question: "Who leads?",
		Queries: []Query{{Ref: "q1", SQL: "SELECT 1", Error: "Binder Error: `x` | gone"}}}}
	if strings.Contains(r.Markdown(), "What changed") {
		t.Fatal("a report never refreshed has a What changed section")
	}
	r.Refresh = &Refresh{Changes: Changes{
		Numbers:  []NumberChange{{Ref: "q1", Row: "north", Column: "total", Old: "17", New: "19"}},
		Failed:   []QueryFailure{{Ref: "q1", Error: "Binder Error: `x` | gone"}},
		Reloaded: []string{"sales"},
	}}
	md := r.Markdown()
	for _, want := range []string{"## What changed\n\nSince the previous version, 1 number moved and 1 query now fails.",
		"*Loaded again because the file changed: sales.*", "- q1, north, total: 17 → 19", "- q1: `` Binder Error: `x` | gone ``",
		"*Table 1. (q1): the query failed: Binder Error: \\`x\\` \\| gone.*"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Index(md, "## What changed") > strings.Index(md, "North leads.") {
		t.Error("What changed does not open the report")
	}
}

func TestCleanProse(t *testing.T) {
	got := cleanProse("<think>hm</think>\n## Heading\n- North rose ![x](http://e/x.png) to [19](http://e) {{chart:c1}} <img src=x>.\n")
	if got != "Heading North rose to 19 ." {
		t.Errorf("cleanProse = %q", got)
	}
}
