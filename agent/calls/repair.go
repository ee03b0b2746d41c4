package calls

import (
	"encoding/json"
	"strings"
)

// Repair turns almost-JSON that small models write into JSON where the fix
// is unambiguous: single-quoted strings, unquoted object keys, trailing
// commas, Python's True/False/None, and a JSON object wrapped in a JSON
// string. It reports false when the text is still not valid JSON after
// that; it never guesses at missing brackets or quotes.
func Repair(text string) (json.RawMessage, bool) {
	s := strings.TrimSpace(text)
	if s == "" {
		return nil, false
	}
	if json.Valid([]byte(s)) {
		return unwrapString(json.RawMessage(s)), true
	}
	fixed := rewrite(s)
	if json.Valid([]byte(fixed)) {
		return unwrapString(json.RawMessage(fixed)), true
	}
	return nil, false
}

// unwrapString returns the object inside a JSON string holding one, else v.
func unwrapString(v json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return v
	}
	inner := strings.TrimSpace(s)
	if strings.HasPrefix(inner, "{") && json.Valid([]byte(inner)) {
		return json.RawMessage(inner)
	}
	if strings.HasPrefix(inner, "{") {
		if fixed := rewrite(inner); json.Valid([]byte(fixed)) {
			return json.RawMessage(fixed)
		}
	}
	return v
}

// rewrite walks s once, copying strings (re-quoting single-quoted ones),
// quoting bare keys, mapping Python literals and dropping commas that
// close nothing.
func rewrite(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\'':
			end, body := scanString(s, i)
			b.WriteString(quote(body))
			i = end
		case c == ',':
			j := skipSpace(s, i+1)
			if j < len(s) && (s[j] == '}' || s[j] == ']') {
				i = j // trailing comma
				continue
			}
			b.WriteByte(c)
			i++
		case isIdentStart(c):
			j := i
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			word := s[i:j]
			k := skipSpace(s, j)
			switch {
			case k < len(s) && s[k] == ':' && prevIsKeyStart(b.String()):
				b.WriteString(quote(word))
			case word == "True":
				b.WriteString("true")
			case word == "False":
				b.WriteString("false")
			case word == "None":
				b.WriteString("null")
			default:
				b.WriteString(word)
			}
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// scanString reads the string literal opening at s[i] (either quote) and
// returns the index after it and its decoded body. An unterminated string
// runs to the end.
func scanString(s string, i int) (int, string) {
	q := s[i]
	var body strings.Builder
	j := i + 1
	for j < len(s) {
		c := s[j]
		switch {
		case c == '\\' && j+1 < len(s):
			n := s[j+1]
			switch n {
			case 'n':
				body.WriteByte('\n')
			case 't':
				body.WriteByte('\t')
			case 'r':
				body.WriteByte('\r')
			case '"', '\'', '\\', '/':
				body.WriteByte(n)
			case 'u':
				if j+6 <= len(s) {
					var r string
					if json.Unmarshal([]byte(`"`+s[j:j+6]+`"`), &r) == nil {
						body.WriteString(r)
						j += 6
						continue
					}
				}
				body.WriteString(s[j : j+2])
			default:
				body.WriteString(s[j : j+2])
			}
			j += 2
		case c == q:
			return j + 1, body.String()
		default:
			body.WriteByte(c)
			j++
		}
	}
	return j, body.String()
}

func quote(s string) string {
	b, _ := json.Marshal(s) // a Go string always marshals
	return string(b)
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r') {
		i++
	}
	return i
}

// prevIsKeyStart reports whether the text written so far ends where an
// object key may start: after '{' or ','.
func prevIsKeyStart(written string) bool {
	t := strings.TrimRight(written, " \n\t\r")
	return strings.HasSuffix(t, "{") || strings.HasSuffix(t, ",")
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdent(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }
