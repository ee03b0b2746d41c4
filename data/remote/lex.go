package remote

import (
	"strings"

	"github.com/loupeapp/loupe/data/sqlscan"
)

// lexRules are the quoting and comment rules of one SQL dialect, enough to
// find where statements end, which bare keywords they hold and which names
// they call.
type lexRules struct {
	backslash     bool // '…' and "…" strings take backslash escapes (MySQL)
	dquoteString  bool // "…" is a string, not an identifier (MySQL, unless ANSI_QUOTES)
	backtick      bool // `identifier` (MySQL, SQLite)
	brackets      bool // [identifier] (SQLite)
	hashComment   bool // # comment to end of line (MySQL)
	dashNeedSpace bool // -- starts a comment only before whitespace (MySQL)
	nested        bool // /* */ comments nest (PostgreSQL)
	dollar        bool // $tag$ … $tag$ strings, E'…' escapes and U&"…" identifiers (PostgreSQL)
	execComment   bool // /*! … */ and MariaDB's /*M! … */ comments are run as code (MySQL)
	tclVars       bool // $name, @name, :name, #name variables, with Tcl's ::name and (…) parts (SQLite)
}

// tokKind is what a token of a statement is.
type tokKind int

const (
	tWord   tokKind = iota // a bare word: keyword or unquoted identifier
	tIdent                 // a quoted identifier: "…", `…`, […] or U&"…"
	tString                // a string literal
	tOther                 // a number, an operator or punctuation
)

// token is one piece of a statement's code (comments and whitespace are
// not tokens).
type token struct {
	kind tokKind
	raw  string
}

// stmt is one top-level statement: its text without comments' content and
// without the semicolon, its bare (unquoted) words, upper-cased, and its
// tokens.
type stmt struct {
	text  string
	words []string
	toks  []token
	// execComment is set when the text holds a MySQL /*! … */ or /*+ … */
	// comment or a MariaDB /*M! … */ one, whose content the server reads
	// as SQL or hints.
	execComment bool
}

// split cuts text into statements at top-level semicolons: semicolons in
// strings, quoted identifiers and comments do not count. Statements with
// no code are dropped. Unterminated quotes and comments run to the end.
func split(text string, r lexRules) []stmt {
	var out []stmt
	var cur strings.Builder
	var words []string
	var toks []token
	code, exec := false, false
	flush := func() {
		if code {
			out = append(out, stmt{text: strings.TrimSpace(cur.String()), words: words, toks: toks, execComment: exec})
		}
		cur.Reset()
		words, toks, code, exec = nil, nil, false, false
	}
	s := text
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ';':
			flush()
			i++
			continue
		case isSpace(c):
			cur.WriteByte(c)
			i++
			continue
		case c == '-' && strings.HasPrefix(s[i:], "--") && (!r.dashNeedSpace || i+2 >= len(s) || dashCommentAfter(s[i+2])),
			c == '#' && r.hashComment:
			cur.WriteByte(' ')
			i = sqlscan.LineCommentEnd(s, i)
			continue
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			if r.execComment && (strings.HasPrefix(s[i+2:], "!") || strings.HasPrefix(s[i+2:], "+") || strings.HasPrefix(s[i+2:], "M!")) {
				exec = true
			}
			i = sqlscan.BlockCommentEnd(s, i, r.nested)
			cur.WriteByte(' ')
			continue
		}
		j, kind := i+1, tOther
		switch {
		case c == '\'':
			j, kind = sqlscan.QuotedEnd(s, i, '\'', r.backslash), tString
		case c == '"' && r.dquoteString:
			j, kind = sqlscan.QuotedEnd(s, i, '"', r.backslash), tString
		case c == '"':
			j, kind = sqlscan.QuotedEnd(s, i, '"', false), tIdent
		case c == '`' && r.backtick:
			j, kind = sqlscan.QuotedEnd(s, i, '`', false), tIdent
		case c == '[' && r.brackets:
			kind = tIdent
			if k := strings.IndexByte(s[i:], ']'); k >= 0 {
				j = i + k + 1
			} else {
				j = len(s)
			}
		case (c == 'u' || c == 'U') && r.dollar && strings.HasPrefix(s[i+1:], `&"`) && !(i > 0 && isWord(s[i-1])):
			j, kind = sqlscan.QuotedEnd(s, i+2, '"', false), tIdent
		case (c == 'e' || c == 'E') && r.dollar && i+1 < len(s) && s[i+1] == '\'' && !(i > 0 && isWord(s[i-1])):
			j, kind = sqlscan.QuotedEnd(s, i+1, '\'', true), tString
		case r.tclVars && strings.IndexByte("$@:#", c) >= 0:
			j = tclVariableEnd(s, i)
		case c == '$' && r.dollar && !(i > 0 && isWord(s[i-1])):
			if tag, ok := sqlscan.DollarTag(s, i); ok {
				kind = tString
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
			kind = tWord
			words = append(words, strings.ToUpper(s[i:j]))
		case c >= '0' && c <= '9':
			for j < len(s) && isWord(s[j]) {
				j++
			}
		}
		toks = append(toks, token{kind: kind, raw: s[i:j]})
		cur.WriteString(s[i:j])
		code = true
		i = j
	}
	flush()
	return out
}

// isSpace is true for every control byte and the space: the engines treat
// the common ones as whitespace, and counting the rest as whitespace too
// only makes more names look called.
func isSpace(c byte) bool { return c <= ' ' && c != 0 }

// dashCommentAfter says whether MySQL and MariaDB start a -- comment when
// c follows the dashes: a space or a control character (my_isspace or
// my_iscntrl), DEL (0x7f) included. Were DEL read as code, a quote after
// it would hide what the server runs in a string.
func dashCommentAfter(c byte) bool { return isSpace(c) || c == 0x7f }

func isWordStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isWord(c byte) bool { return isWordStart(c) || c >= '0' && c <= '9' || c == '$' }

// tclVariableEnd returns the end of the SQLite variable that starts at i
// ($, @, : or #), as SQLite's tokenizer reads it: name characters, "::"
// between them, and a final (…) up to a space or ")", whatever it holds
// ($a(') is one token there, not a quote). The (…) ends at SQLite's own
// spaces (sqlite3Isspace), not at every control byte.
func tclVariableEnd(s string, i int) int {
	n, j := 0, i+1
	for j < len(s) {
		switch c := s[j]; {
		case isWord(c):
			n++
			j++
		case c == '(' && n > 0:
			for j++; j < len(s) && !strings.ContainsRune(" \t\n\v\f\r", rune(s[j])) && s[j] != ')'; j++ {
			}
			if j < len(s) && s[j] == ')' {
				j++
			}
			return j
		case c == ':' && j+1 < len(s) && s[j+1] == ':':
			j += 2
		default:
			return j
		}
	}
	return j
}
