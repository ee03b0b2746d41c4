package privacy

import (
	"strings"

	"github.com/loupeapp/loupe/data/sqlscan"
)

// quoted is a quoted part of a SQL text, as DuckDB reads it: s[start:end]
// is a string literal ('…', E'…' with backslash escapes, $tag$…$tag$) or
// a quoted name ("…"); as MySQL reads it, a string literal ('…' or "…",
// backslash escapes) or a quoted name (`…`).
type quoted struct {
	start, end int
	quote      byte   // '\'', '"', '`' or '$'
	backslash  bool   // \ escapes (E'…', MySQL's strings)
	tag        string // the closing tag of a dollar-quoted string
}

// quotedParts lists the quoted parts of s in order, skipping comments
// (-- to the end of the line, /* */; MySQL's # too, and -- only before
// a space), so that a quote
// inside a comment or a name opens nothing. An unclosed part runs to the
// end. mysql reads s as MySQL does (see quoted).
func quotedParts(s string, mysql bool) []quoted {
	var out []quoted
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case strings.HasPrefix(s[i:], "--") && (!mysql || i+2 == len(s) || strings.IndexByte(" \t\r\n", s[i+2]) >= 0),
			mysql && c == '#':
			i = sqlscan.LineCommentEnd(s, i)
		case strings.HasPrefix(s[i:], "/*"):
			i = sqlscan.BlockCommentEnd(s, i, !mysql)
		case c == '\'' || c == '"' || mysql && c == '`':
			p := quoted{start: i, quote: c}
			p.backslash = mysql && c != '`' || c == '\'' && i > 0 && (s[i-1] == 'E' || s[i-1] == 'e') && (i == 1 || !nameByte(s[i-2]))
			p.end = sqlscan.QuotedEnd(s, i, c, p.backslash)
			out = append(out, p)
			i = p.end
		case !mysql && c == '$' && (i == 0 || !nameByte(s[i-1])):
			tag, ok := sqlscan.DollarTag(s, i)
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
	switch {
	case p.quote == 0:
		return v, true
	case p.quote == '$':
		return v, !strings.Contains(v, p.tag)
	case p.backslash:
		v = strings.ReplaceAll(v, `\`, `\\`)
	}
	q := string(p.quote)
	return strings.ReplaceAll(v, q, q+q), true
}
