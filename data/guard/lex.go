package guard

import "strings"

// split cuts text into top-level statements the way DuckDB's parser does:
// semicolons inside string literals, quoted identifiers, dollar-quoted
// strings and comments do not count. Statements holding only whitespace and
// comments are dropped. It also reports whether any statement's tokens
// include the keyword kw (case-insensitive, outside literals and comments).
//
// It decides only how many statements the user wrote; the statement type
// always comes from DuckDB.
func split(text string) []statement {
	var out []statement
	var cur strings.Builder
	var words []string
	hasCode := false
	flush := func() {
		if hasCode {
			out = append(out, statement{text: strings.TrimSpace(cur.String()), words: words})
		}
		cur.Reset()
		words = nil
		hasCode = false
	}
	s := text
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ';':
			flush()
			i++
			continue
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				j = len(s) - i
			}
			cur.WriteByte(' ')
			i += j
			continue
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := blockCommentEnd(s, i)
			cur.WriteByte(' ')
			i = j
			continue
		case c == '\'':
			j := quotedEnd(s, i, '\'', isEscapeString(s, i))
			cur.WriteString(s[i:j])
			hasCode = true
			i = j
			continue
		case c == '"':
			j := quotedEnd(s, i, '"', false)
			cur.WriteString(s[i:j])
			hasCode = true
			i = j
			continue
		case c == '$':
			if tag, ok := dollarTag(s, i); ok {
				k := strings.Index(s[i+len(tag):], tag)
				j := len(s)
				if k >= 0 {
					j = i + len(tag) + k + len(tag)
				}
				cur.WriteString(s[i:j])
				hasCode = true
				i = j
				continue
			}
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			words = append(words, strings.ToUpper(s[i:j]))
			cur.WriteString(s[i:j])
			hasCode = true
			i = j
			continue
		}
		if c > ' ' {
			hasCode = true
		}
		cur.WriteByte(c)
		i++
	}
	flush()
	return out
}

type statement struct {
	text  string
	words []string // upper-cased bare words, in order
}

func (st statement) has(word string) bool {
	for _, w := range st.words {
		if w == word {
			return true
		}
	}
	return false
}

// blockCommentEnd returns the index just past the block comment starting
// at i. Block comments nest, as in PostgreSQL and DuckDB.
func blockCommentEnd(s string, i int) int {
	depth := 0
	for i < len(s) {
		switch {
		case strings.HasPrefix(s[i:], "/*"):
			depth++
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

// quotedEnd returns the index just past the literal opened at i with q.
// A doubled quote escapes itself; with backslash set (E'...'), so does \.
func quotedEnd(s string, i int, q byte, backslash bool) int {
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

// isEscapeString reports whether the quote at i opens an E'...' literal.
func isEscapeString(s string, i int) bool {
	if i == 0 || (s[i-1] != 'e' && s[i-1] != 'E') {
		return false
	}
	return i == 1 || !isWordByte(s[i-2])
}

// dollarTag returns the $tag$ opening a dollar-quoted string at i.
func dollarTag(s string, i int) (string, bool) {
	if i > 0 && isWordByte(s[i-1]) {
		return "", false // a $ inside an identifier, e.g. a$b
	}
	j := i + 1
	for j < len(s) && (isWordByte(s[j]) && !(s[j] >= '0' && s[j] <= '9' && j == i+1)) {
		j++
	}
	if j < len(s) && s[j] == '$' {
		return s[i : j+1], true
	}
	return "", false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
