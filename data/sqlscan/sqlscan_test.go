package sqlscan

import "testing"

func TestEnds(t *testing.T) {
	cases := []struct {
		name string
		got  int
		want int
	}{
		{"line comment ends at \\n", LineCommentEnd("a -- x\nb", 2), 6},
		{"line comment ends at \\r", LineCommentEnd("-- x\rb", 0), 4},
		{"line comment to the end", LineCommentEnd("a -- x", 2), 6},
		{"block comment", BlockCommentEnd("/* a */ b", 0, true), 7},
		{"nested block comment", BlockCommentEnd("/* a /* b */ c */ d", 0, true), 17},
		{"flat block comment ends at the first */", BlockCommentEnd("/* a /* b */ c */ d", 0, false), 12},
		{"unclosed block comment", BlockCommentEnd("x /* a", 2, true), 6},
		{"string", QuotedEnd("'it''s' x", 0, '\'', false), 7},
		{"string with a backslash escape", QuotedEnd(`'a\'b' x`, 0, '\'', true), 6},
		{"backslash not an escape", QuotedEnd(`'a\' x`, 0, '\'', false), 4},
		{"unclosed string", QuotedEnd("'abc", 0, '\'', false), 4},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
}
