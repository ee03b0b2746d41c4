// Package sqlscan says where the parts of SQL text that are not code end:
// string literals and quoted names, line comments and block comments. The
// SQL lexers (data/guard for DuckDB, data/remote for the connected
// databases, data/privacy's lineage) share it, each deciding with its own
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
