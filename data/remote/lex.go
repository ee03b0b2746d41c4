package remote

import (
	"strings"

	"github.com/loupeapp/loupe/data/guard"
)

// lexRules are the quoting and comment rules of one SQL dialect, enough to
// find where statements end and which bare keywords they hold.
type lexRules struct {
	backslash     bool // '…' and "…" strings take backslash escapes (MySQL)
	dquoteString  bool // "…" is a string, not an identifier (MySQL)
	backtick      bool // `identifier` (MySQL, SQLite)
	brackets      bool // [identifier] (SQLite)
	hashComment   bool // # comment to end of line (MySQL)
	dashNeedSpace bool // -- starts a comment only before whitespace (MySQL)
	nested        bool // /* */ comments nest (PostgreSQL)
	dollar        bool // $tag$ … $tag$ strings and E'…' escapes (PostgreSQL)
	execComment   bool // /*! … */ comments are run as code (MySQL)
}

var rules = map[Kind]lexRules{
	Postgres: {nested: true, dollar: true},
	MySQL:    {backslash: true, dquoteString: true, backtick: true, hashComment: true, dashNeedSpace: true, execComment: true},
	SQLite:   {backtick: true, brackets: true},
}

// stmt is one top-level statement: its text without comments' content and
// without the semicolon, and its bare (unquoted) words, upper-cased.
type stmt struct {
	text  string
	words []string
	// execComment is set when the text holds a MySQL /*! … */ or /*+ … */
	// comment, whose content the server reads as SQL or hints.
	execComment bool
}

// split cuts text into statements at top-level semicolons: semicolons in
// strings, quoted identifiers and comments do not count. Statements with
// no code are dropped. Unterminated quotes and comments run to the end.
func split(text string, r lexRules) []stmt {
	var out []stmt
	var cur strings.Builder
	var words []string
	code, exec := false, false
	flush := func() {
		if code {
			out = append(out, stmt{text: strings.TrimSpace(cur.String()), words: words, execComment: exec})
		}
		cur.Reset()
		words, code, exec = nil, false, false
	}
	s := text
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ';':
			flush()
			i++
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			cur.WriteByte(c)
			i++
			continue
		case c == '-' && strings.HasPrefix(s[i:], "--") && (!r.dashNeedSpace || i+2 >= len(s) || isSpace(s[i+2])),
			c == '#' && r.hashComment:
			j := strings.IndexAny(s[i:], "\n\r")
			if j < 0 {
				j = len(s) - i
			}
			cur.WriteByte(' ')
			i += j
			continue
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			if r.execComment && i+2 < len(s) && (s[i+2] == '!' || s[i+2] == '+') {
				exec = true
			}
			i = commentEnd(s, i, r.nested)
			cur.WriteByte(' ')
			continue
		}
		j := i + 1
		switch {
		case c == '\'':
			j = guard.QuotedEnd(s, i, '\'', r.backslash)
		case c == '"':
			j = guard.QuotedEnd(s, i, '"', r.backslash && r.dquoteString)
		case c == '`' && r.backtick:
			j = guard.QuotedEnd(s, i, '`', false)
		case c == '[' && r.brackets:
			if k := strings.IndexByte(s[i:], ']'); k >= 0 {
				j = i + k + 1
			} else {
				j = len(s)
			}
		case (c == 'e' || c == 'E') && r.dollar && i+1 < len(s) && s[i+1] == '\'' && !(i > 0 && isWord(s[i-1])):
			j = guard.QuotedEnd(s, i+1, '\'', true)
		case c == '$' && r.dollar && !(i > 0 && isWord(s[i-1])):
			if tag, ok := dollarTag(s, i); ok {
				if k := strings.Index(s[i+len(tag):], tag); k >= 0 {
					j = i + len(tag) + k + len(tag)
				} else {
					j = len(s)
				}
			}
		case isWordStart(c):
			for j < len(s) && isWord(s[j]) {
				j++
			}
			words = append(words, strings.ToUpper(s[i:j]))
		case c >= '0' && c <= '9':
			for j < len(s) && isWord(s[j]) {
				j++
			}
		}
		cur.WriteString(s[i:j])
		code = true
		i = j
	}
	flush()
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func isWordStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isWord(c byte) bool { return isWordStart(c) || c >= '0' && c <= '9' || c == '$' }

// commentEnd returns the index just past the block comment at i.
func commentEnd(s string, i int, nested bool) int {
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

// dollarTag returns the $tag$ that opens a dollar-quoted string at i.
func dollarTag(s string, i int) (string, bool) {
	j := i + 1
	if j < len(s) && isWordStart(s[j]) {
		for j < len(s) && (isWordStart(s[j]) || s[j] >= '0' && s[j] <= '9') {
			j++
		}
	}
	if j < len(s) && s[j] == '$' {
		return s[i : j+1], true
	}
	return "", false
}
