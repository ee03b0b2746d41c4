package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlainWide checks which files get their dialect from Loupe instead
// of DuckDB's sniffer: only wide ones with one delimiter, nothing quoted
// or escaped, and the same number of fields on every line.
func TestPlainWide(t *testing.T) {
	row := func(n int, sep, cell string) string {
		cells := make([]string, n)
		for i := range cells {
			cells[i] = cell
		}
		return strings.Join(cells, sep)
	}
	wide := wideColumns + 1
	tests := []struct {
		name, text string
		delim      byte
		want       bool
	}{
		{"wide plain CSV", row(wide, ",", "h") + "\n" + row(wide, ",", "1") + "\n", ',', true},
		{"no newline at the end", row(wide, ",", "h") + "\n" + row(wide, ",", "1"), ',', true},
		{"CRLF", row(wide, ",", "h") + "\r\n" + row(wide, ",", "1") + "\r\n", ',', true},
		{"wide plain TSV", row(wide, "\t", "h") + "\n" + row(wide, "\t", "1") + "\n", '\t', true},
		{"narrow", row(wideColumns, ",", "h") + "\n" + row(wideColumns, ",", "1") + "\n", ',', false},
		{"a quote", row(wide, ",", "h") + "\n" + row(wide-1, ",", "1") + `,"x"` + "\n", ',', false},
		{"an apostrophe", row(wide, ",", "h") + "\n" + row(wide-1, ",", "1") + ",it's\n", ',', false},
		{"a backslash", row(wide, ",", "h") + "\n" + row(wide-1, ",", "1") + `,a\b` + "\n", ',', false},
		{"another delimiter", row(wide, ",", "h") + "\n" + row(wide-1, ",", "1") + ",1;2\n", ',', false},
		{"a comma in a TSV", row(wide, "\t", "h") + "\n" + row(wide-1, "\t", "1") + "\t1,5\n", '\t', false},
		{"ragged", row(wide, ",", "h") + "\n" + row(wide-1, ",", "1") + "\n", ',', false},
		{"ragged last line", row(wide, ",", "h") + "\n" + row(wide-1, ",", "1"), ',', false},
		{"a blank line", row(wide, ",", "h") + "\n\n" + row(wide, ",", "1") + "\n", ',', false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f.csv")
			if err := os.WriteFile(p, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := plainWide(p, tc.delim); got != tc.want {
				t.Errorf("plainWide = %v, want %v", got, tc.want)
			}
		})
	}
	if plainWide(filepath.Join(t.TempDir(), "missing.csv"), ',') {
		t.Error("plainWide of a missing file = true")
	}
}
