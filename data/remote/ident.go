package remote

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// name is a name a statement uses: an identifier, bare or quoted, as the
// server resolves it, lower-cased for comparison with the deny lists.
type name struct {
	text string // unquoted, unescaped, lower-cased
	// called is set when the next token is "(": the name is a function
	// (the last part of a qualified name, pg_catalog."pg_read_file"(…),
	// is the one called). With attributes, a name after "." counts as
	// called too: PostgreSQL runs f(x) written as x.f, so
	// ('/etc/passwd'::text).pg_read_file reads the file.
	called bool
}

// names lists the names the statement's tokens spell. Bare words, quoted
// identifiers ("…" with "" escapes, `…`, […], PostgreSQL's U&"…" with
// \XXXX escapes and an optional UESCAPE) and, as a server running MySQL
// with ANSI_QUOTES or SQLite's fallbacks would read them, strings standing
// where a function name goes all become names: quoting never hides a
// name. A U&"…" name whose escapes do not decode is an error.
func names(st stmt, attributes bool) ([]name, error) {
	var out []name
	toks := st.toks
	for i := 0; i < len(toks); i++ {
		t, start := toks[i], i
		var text string
		switch t.kind {
		case tWord:
			text = t.raw
		case tIdent, tString:
			esc := byte('\\')
			if t.kind == tIdent && isUnicodeIdent(t.raw) && i+2 < len(toks) &&
				strings.EqualFold(toks[i+1].raw, "UESCAPE") && toks[i+2].kind == tString {
				e := unquote(toks[i+2].raw)
				if len(e) != 1 {
					return nil, fmt.Errorf("UESCAPE %s is not one character", toks[i+2].raw)
				}
				esc = e[0]
				i += 2
			}
			var err error
			if text, err = identText(t.raw, esc); err != nil {
				return nil, err
			}
		default:
			continue
		}
		called := i+1 < len(toks) && toks[i+1].raw == "(" ||
			attributes && t.kind != tString && start > 0 && toks[start-1].raw == "."
		if t.kind == tString && !called {
			continue // a string, not a name
		}
		out = append(out, name{text: strings.ToLower(text), called: called})
	}
	return out, nil
}

func isUnicodeIdent(raw string) bool {
	return len(raw) > 2 && (raw[0] == 'u' || raw[0] == 'U') && raw[1] == '&'
}

// identText unquotes one quoted identifier (or string), decoding the
// escapes of a U&"…" one with esc.
func identText(raw string, esc byte) (string, error) {
	if isUnicodeIdent(raw) {
		return unicodeEscapes(unquote(raw[2:]), esc)
	}
	return unquote(raw), nil
}

// unquote strips the quotes of "…", `…`, '…' or […] and undoubles the
// quote inside. An unterminated quote keeps what follows it.
func unquote(raw string) string {
	if len(raw) < 1 {
		return raw
	}
	open := raw[0]
	closing := open
	if open == '[' {
		closing = ']'
	}
	body := raw[1:]
	if len(body) > 0 && body[len(body)-1] == closing {
		body = body[:len(body)-1]
	}
	if open == '[' {
		return body
	}
	q := string(open)
	return strings.ReplaceAll(body, q+q, q)
}

// unicodeEscapes decodes PostgreSQL's U&"…" escapes: esc followed by four
// hex digits, by + and six, or by itself.
func unicodeEscapes(s string, esc byte) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != esc {
			b.WriteByte(s[i])
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == esc:
			b.WriteByte(esc)
			i++
		case i+7 < len(s) && s[i+1] == '+':
			r, err := strconv.ParseUint(s[i+2:i+8], 16, 32)
			if err != nil || !utf8.ValidRune(rune(r)) {
				return "", fmt.Errorf("bad escape %q in a U& identifier", s[i:i+8])
			}
			b.WriteRune(rune(r))
			i += 7
		case i+4 < len(s) && s[i+1] != '+':
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil || !utf8.ValidRune(rune(r)) {
				return "", fmt.Errorf("bad escape %q in a U& identifier", s[i:i+5])
			}
			b.WriteRune(rune(r))
			i += 4
		default:
			return "", fmt.Errorf("incomplete escape %q in a U& identifier", s[i:])
		}
	}
	return b.String(), nil
}
