package privacy

import (
	"strings"

	"github.com/loupeapp/loupe/data/sqlscan"
)

// quoted is a quoted part of a SQL text, as DuckDB reads it: s[start:end]
// is a string literal ('…', E'…' with backslash escapes, $tag$…$tag$) or
// a quoted name ("…").
type quoted struct {
	start, end int
	quote      byte   // '\'', '"' or '$'
	backslash  bool   // an E'…' literal: \ escapes
	tag        string // the closing tag of a dollar-quoted string
}

// quotedParts lists the quoted parts of s in order, skipping comments
// (-- to the end of the line, nested /* */), so that a quote inside a
// comment or a name opens nothing. An unclosed part runs to the end.
func quotedParts(s string) []quoted {
	var out []quoted
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case strings.HasPrefix(s[i:], "--"):
			i = sqlscan.LineCommentEnd(s, i)
		case strings.HasPrefix(s[i:], "/*"):
			i = sqlscan.BlockCommentEnd(s, i, true)
		case c == '\'' || c == '"':
			p := quoted{start: i, quote: c}
			p.backslash = c == '\'' && i > 0 && (s[i-1] == 'E' || s[i-1] == 'e') && (i == 1 || !nameByte(s[i-2]))
			p.end = sqlscan.QuotedEnd(s, i, c, p.backslash)
			out = append(out, p)
			i = p.end
		case c == '$' && (i == 0 || !nameByte(s[i-1])):
			tag, ok := dollarTag(s[i:])
			if !ok {
				i++
				continue
			}
			p := quoted{start: i, quote: '$', tag: tag, end: len(s)}
			if j := strings.Index(s[i+len(tag):], tag); j >= 0 {
				p.end = i + len(tag) + j + len(tag)
			}
			out = append(out, p)
			i = p.end
		default:
			i++
		}
	}
	return out
}

// dollarTag is the $tag$ (or $$) that s starts with.
func dollarTag(s string) (string, bool) {
	for j := 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '$':
			return s[:j+1], true
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 1 && c >= '0' && c <= '9' || c >= 0x80:
		default:
			return "", false
		}
	}
	return "", false
}

func nameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// partAt is the quoted part holding offset i, the zero quoted when none.
func partAt(parts []quoted, i int) quoted {
	for _, p := range parts {
		if p.start < i && i < p.end {
			return p
		}
	}
	return quoted{}
}

// escape returns v written to stay inside p; ok is false when it cannot
// (a dollar-quoted string's closing tag in v).
func (p quoted) escape(v string) (string, bool) {
	switch p.quote {
	case '\'':
		if p.backslash {
			v = strings.ReplaceAll(v, `\`, `\\`)
		}
		return strings.ReplaceAll(v, "'", "''"), true
	case '"':
		return strings.ReplaceAll(v, `"`, `""`), true
	case '$':
		return v, !strings.Contains(v, p.tag)
	}
	return v, true
}
