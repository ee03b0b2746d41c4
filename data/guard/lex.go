package guard

import (
	"strings"

	"github.com/loupeapp/loupe/data/sqlscan"
)

// split cuts text into top-level statements the way DuckDB's parser does:
// semicolons inside string literals, quoted identifiers, dollar-quoted
// strings and comments do not count. Statements holding only whitespace and
// comments are dropped. Each statement's text has its comments blanked and
// the Unicode spaces DuckDB treats as whitespace turned into plain spaces.
// It also records every statement's identifiers (bare and quoted,
// upper-cased) so callers can ask whether a keyword or name occurs.
//
// It decides only how many statements the user wrote; the statement type
// always comes from DuckDB. The scanning rules follow DuckDB's scanner
// (third_party/libpg_query/scan.l): an identifier may contain $, a number
// ends before a letter (so 1e'…' is the number 1 followed by an E'…'
// string), E'…' strings take backslash escapes and continue across a quote,
// a newline and another quote, and a -- comment ends at \n or \r.
func split(text string) []statement {
	var out []statement
	var cur strings.Builder
	var words []string
	hasCode, uident := false, false
	flush := func() {
		if hasCode {
			out = append(out, statement{text: strings.TrimSpace(cur.String()), words: words, uident: uident})
		}
		cur.Reset()
		words = nil
		hasCode, uident = false, false
	}
	for _, t := range tokenize(text) {
		raw := text[t.start:t.end]
		switch t.kind {
		case tSemicolon:
			flush()
			continue
		case tComment, tSpace:
			if t.kind == tComment || raw[0] >= 0x80 {
				cur.WriteByte(' ')
			} else {
				cur.WriteString(raw)
			}
			continue
		case tWord, tQuoted:
			words = append(words, t.word)
			uident = uident || t.uident
		}
		cur.WriteString(raw)
		hasCode = true
	}
	flush()
	return out
}

type statement struct {
	text   string
	words  []string // upper-cased identifiers, bare and quoted, in order
	uident bool     // a U&"…" identifier, whose name escapes may spell anything
}

// first is the statement's first identifier or keyword, or "".
func (st statement) first() string {
	if len(st.words) == 0 {
		return ""
	}
	return st.words[0]
}

func (st statement) has(word string) bool {
	for _, w := range st.words {
		if w == word {
			return true
		}
	}
	return false
}

type tokKind int

const (
	tSpace     tokKind = iota // ASCII whitespace, or one Unicode space DuckDB strips
	tComment                  // -- or /* */ (nested)
	tSemicolon                // ;
	tWord                     // identifier or keyword
	tQuoted                   // "quoted identifier"
	tString                   // any string literal, dollar-quoted included
	tNumber                   // numeric literal
	tParam                    // $1
	tOther                    // any other byte (operators, punctuation)
)

type token struct {
	kind       tokKind
	start, end int
	word       string // upper-cased name of a tWord or tQuoted
	uident     bool
}

// tokenize splits s into tokens the way DuckDB's scanner delimits them.
// Unterminated literals and comments run to the end of s.
func tokenize(s string) []token {
	var toks []token
	emit := func(k tokKind, i, j int) {
		toks = append(toks, token{kind: k, start: i, end: j})
	}
	// eCont is the index of a quote that continues the E'…' literal
	// before it (scan.l's quotecontinue), so it takes backslash escapes.
	eCont := -1
	estring := func(i, q int) {
		j := sqlscan.QuotedEnd(s, q, '\'', true)
		emit(tString, i, j)
		if k, ok := continuation(s, j); ok {
			eCont = k
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		if n := unicodeSpace(s, i); n > 0 {
			emit(tSpace, i, i+n)
			i += n
			continue
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			emit(tSpace, i, i+1)
			i++
		case c == ';':
			emit(tSemicolon, i, i+1)
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			j := sqlscan.LineCommentEnd(s, i)
			emit(tComment, i, j)
			i = j
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := sqlscan.BlockCommentEnd(s, i, true)
			emit(tComment, i, j)
			i = j
		case c == '\'' && i == eCont:
			estring(i, i)
			i = toks[len(toks)-1].end
		case c == '\'':
			j := sqlscan.QuotedEnd(s, i, '\'', false)
			emit(tString, i, j)
			i = j
		case (c == 'e' || c == 'E') && i+1 < len(s) && s[i+1] == '\'':
			estring(i, i+1)
			i = toks[len(toks)-1].end
		case c == '"':
			j := sqlscan.QuotedEnd(s, i, '"', false)
			name := s[i+1 : j]
			if strings.HasSuffix(name, `"`) {
				name = name[:len(name)-1]
			}
			uid := i >= 2 && s[i-1] == '&' && (s[i-2] == 'u' || s[i-2] == 'U')
			toks = append(toks, token{kind: tQuoted, start: i, end: j, word: upperASCII(strings.ReplaceAll(name, `""`, `"`)), uident: uid})
			i = j
		case c == '$':
			if tag, ok := dollarTag(s, i); ok {
				k := strings.Index(s[i+len(tag):], tag)
				j := len(s)
				if k >= 0 {
					j = i + len(tag) + k + len(tag)
				}
				emit(tString, i, j)
				i = j
			} else if i+1 < len(s) && isDigit(s[i+1]) {
				j := integerEnd(s, i+1)
				emit(tParam, i, j)
				i = j
			} else {
				emit(tOther, i, i+1)
				i++
			}
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			j := numberEnd(s, i)
			emit(tNumber, i, j)
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(s) && isIdentCont(s[j]) && unicodeSpace(s, j) == 0 {
				j++
			}
			toks = append(toks, token{kind: tWord, start: i, end: j, word: upperASCII(s[i:j])})
			i = j
		default:
			emit(tOther, i, i+1)
			i++
		}
	}
	return toks
}

// unicodeSpace returns the length of the Unicode space at i that DuckDB
// replaces with a plain space before parsing (Parser::StripUnicodeSpaces:
// U+00A0, U+2000–U+200B, U+202F, U+205F, U+2060, U+3000, U+FEFF), or 0.
func unicodeSpace(s string, i int) int {
	if i+1 < len(s) && s[i] == 0xC2 && s[i+1] == 0xA0 {
		return 2
	}
	if i+2 >= len(s) {
		return 0
	}
	switch b1, b2 := s[i+1], s[i+2]; s[i] {
	case 0xE2:
		if b1 == 0x80 && (b2 >= 0x80 && b2 <= 0x8B || b2 == 0xAF) || b1 == 0x81 && (b2 == 0x9F || b2 == 0xA0) {
			return 3
		}
	case 0xE3:
		if b1 == 0x80 && b2 == 0x80 {
			return 3
		}
	case 0xEF:
		if b1 == 0xBB && b2 == 0xBF {
			return 3
		}
	}
	return 0
}

// continuation reports whether s[j:], just past a literal's closing
// quote, is whitespace with a newline in it (-- comments allowed) followed
// by a quote: the scanner then continues the same literal. It returns that
// quote's index. For plain literals this changes nothing about where code
// resumes; for E'…' it means the next part takes backslash escapes too.
// Unicode spaces count as whitespace: split turns them into plain ones.
func continuation(s string, j int) (int, bool) {
	newline := false
	for j < len(s) {
		switch c := s[j]; {
		case c == '\n' || c == '\r':
			newline = true
			j++
		case c == ' ' || c == '\t' || c == '\f':
			j++
		case unicodeSpace(s, j) > 0:
			j += unicodeSpace(s, j)
		case c == '-' && j+1 < len(s) && s[j+1] == '-':
			if j = sqlscan.LineCommentEnd(s, j); j == len(s) {
				return 0, false
			}
		case c == '\'' && newline:
			return j, true
		default:
			return 0, false
		}
	}
	return 0, false
}

// dollarTag returns the $tag$ opening a dollar-quoted string at i. The
// scanner never reaches a $ inside an identifier (a$b is one identifier).
func dollarTag(s string, i int) (string, bool) {
	j := i + 1
	if j < len(s) && isIdentStart(s[j]) {
		// A tag holding a Unicode space is refused as a tag: DuckDB may or
		// may not turn that space into a plain one before scanning.
		for j < len(s) && (isIdentStart(s[j]) || isDigit(s[j])) && unicodeSpace(s, j) == 0 {
			j++
		}
	}
	if j < len(s) && s[j] == '$' {
		return s[i : j+1], true
	}
	return "", false
}

// numberEnd returns the index just past the numeric literal at i: digits
// with single underscores between them, an optional fraction (not before
// "..", which is a range) and an exponent only when digits follow the E.
func numberEnd(s string, i int) int {
	j := i
	if s[j] != '.' {
		j = integerEnd(s, j)
	}
	if j < len(s) && s[j] == '.' && !(j+1 < len(s) && s[j+1] == '.') {
		j++
		if j < len(s) && isDigit(s[j]) {
			j = integerEnd(s, j)
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			j = integerEnd(s, k)
		}
	}
	return j
}

// integerEnd returns the index past the digits (and single underscores
// between digits) starting at i, which must be a digit.
func integerEnd(s string, i int) int {
	j := i + 1
	for j < len(s) {
		switch {
		case isDigit(s[j]):
			j++
		case s[j] == '_' && j+1 < len(s) && isDigit(s[j+1]):
			j += 2
		default:
			return j
		}
	}
	return j
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentCont(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }

// upperASCII upper-cases ASCII letters only, as DuckDB folds identifiers.
func upperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
