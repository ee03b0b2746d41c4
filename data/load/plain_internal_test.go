package load

import (
	"slices"
	"testing"

	"github.com/loupeapp/loupe/data/catalog"
)

func TestPlainText(t *testing.T) {
	for _, tc := range []struct {
		name   string
		text   string
		delim  byte
		header []string // nil: not plain
	}{
		{"plain", "a,b,c\n1,x y,2024-01-02\n2,,3\n", ',', []string{"a", "b", "c"}},
		{"no final newline", "a,b\n1,2", ',', []string{"a", "b"}},
		{"crlf", "a,b\r\n1,2\r\n", ',', []string{"a", "b"}},
		{"tsv", "a\tb\n1.5\tx y\n", '\t', []string{"a", "b"}},
		{"tsv with a comma", "a\tb\n1,5\tx\n", '\t', nil},
		{"header only", "a,b\n", ',', nil},
		{"one column", "a\n1\n2\n", ',', nil},
		{"ragged", "a,b\n1,2,3\n", ',', nil},
		{"blank line", "a,b\n1,2\n\n3,4\n", ',', nil},
		{"quoted", "a,b\n\"1,5\",2\n", ',', nil},
		{"apostrophe", "a,b\nit's,2\n", ',', nil},
		{"backslash", "a,b\nc:\\x,2\n", ',', nil},
		{"semicolons", "a,b\n1;2,3\n", ',', nil},
		{"pipe", "a,b\n1|2,3\n", ',', nil},
		{"tab in csv", "a,b\n1\t2,3\n", ',', nil},
		{"comment line", "a,b\n# note,x\n1,2\n", ',', nil},
		{"control character", "a,b\n1\x01,2\n", ',', nil},
		{"carriage return inside", "a,b\n1\r2,3\n", ',', nil},
		{"invalid utf-8", "a,b\n\xff,2\n", ',', nil},
		{"empty", "", ',', nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			header, ok := plainText([]byte(tc.text), tc.delim)
			if ok != (tc.header != nil) || (ok && !slices.Equal(header, tc.header)) {
				t.Errorf("plainText(%q) = %q, %v; want %q, %v", tc.text, header, ok, tc.header, tc.header != nil)
			}
		})
	}
}

func TestNumberSuspects(t *testing.T) {
	cols := []catalog.Column{{Name: "id", Type: "BIGINT"}, {Name: "eu", Type: "VARCHAR"}, {Name: "name", Type: "VARCHAR"}, {Name: "code", Type: "VARCHAR"}}
	text := "id,eu,name,code\n1, 1.234.567 ,ann,0012\n2,,bob,0013\n3,-2.500.000,cy,x1\n"
	got := numberSuspects([]byte(text), ',', cols)
	if len(got) != 1 || got[0].name != "eu" {
		t.Errorf("suspects = %+v; want only eu (digits and separators in every value; code has no separator, name is words)", got)
	}
}
