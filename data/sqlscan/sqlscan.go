// Package sqlscan says where the parts of SQL text that are not code end:
// string literals and quoted names, line comments and block comments, and
// how a dollar-quoted string's tag is written. The SQL lexers (data/guard
// for DuckDB, data/remote for the connected databases, data/privacy's
// lineage and its quoted parts) share it, each deciding with its own
// dialect's rules where such a part starts.
package sqlscan

import "strings"

// QuotedEnd returns the index just past the literal opened at i with q
// (len(s) when it is never closed). A doubled quote escapes itself; with
// backslash set (E'...', MySQL strings), so does \.
func QuotedEnd(s string, i int, q byte, backslash bool) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if backslash {
				j++
			}
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

// LineCommentEnd returns the index of the line break (\n or \r) that ends
// the line comment starting at i (-- or #), len(s) when none does: the
// break itself is whitespace, not comment.
func LineCommentEnd(s string, i int) int {
	if j := strings.IndexAny(s[i:], "\n\r"); j >= 0 {
		return i + j
	}
	return len(s)
}

// BlockCommentEnd returns the index just past the block comment starting
// at i (len(s) when it is never closed). With nested, /* inside it opens
// another level, as in PostgreSQL and DuckDB; without, the first */ ends
// it, as in MySQL and SQLite.
func BlockCommentEnd(s string, i int, nested bool) int {
	depth := 0
	for i < len(s) {
		switch {
		case strings.HasPrefix(s[i:], "/*"):
			if depth == 0 || nested {
				depth++
			}
			i += 2
		case strings.HasPrefix(s[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(s)
}

// DollarTag returns the $tag$ (or $$) that opens a dollar-quoted string
// at i in s, as PostgreSQL and DuckDB write them: a tag is a name (a
// letter, _ or a non-ASCII byte, then digits too) or nothing.
func DollarTag(s string, i int) (string, bool) {
	j := i + 1
	if j < len(s) && tagStart(s[j]) {
		for j < len(s) && (tagStart(s[j]) || s[j] >= '0' && s[j] <= '9') {
			j++
		}
	}
	if j < len(s) && s[j] == '$' {
		return s[i : j+1], true
	}
	return "", false
}

func tagStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
