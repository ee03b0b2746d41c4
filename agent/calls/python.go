package calls

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// pyCall is a call written the Python way: name(arg, key=value, …).
type pyCall struct {
	name       string
	positional []any
	keywords   map[string]any
	order      []string // keyword names as written
	end        int      // index just after the closing parenthesis
}

var errNotCall = errors.New("not a call")

// parsePyCall reads a Python-style call opening at s[i]: an identifier
// (dots allowed, a trailing ".call" as Llama's built-in tools write it is
// dropped), "(", literal arguments, ")". It returns errNotCall when s[i:]
// does not start like a call, and another error when it does but its
// arguments cannot be read.
func parsePyCall(s string, i int) (pyCall, error) {
	j := i
	for j < len(s) && (isIdent(s[j]) || s[j] == '.') {
		j++
	}
	if j == i || !isIdentStart(s[i]) {
		return pyCall{}, errNotCall
	}
	name := strings.TrimSuffix(s[i:j], ".call")
	k := skipSpace(s, j)
	if k >= len(s) || s[k] != '(' {
		return pyCall{}, errNotCall
	}
	c := pyCall{name: name, keywords: map[string]any{}}
	p := &pyParser{s: s, i: k + 1}
	for {
		p.space()
		if p.eat(')') {
			c.end = p.i
			return c, nil
		}
		if p.i >= len(s) {
			return c, errors.New("the call has no closing parenthesis")
		}
		if key, ok := p.keyword(); ok {
			v, err := p.value()
			if err != nil {
				return c, fmt.Errorf("argument %s: %w", key, err)
			}
			if _, dup := c.keywords[key]; !dup {
				c.order = append(c.order, key)
			}
			c.keywords[key] = v
		} else {
			if len(c.keywords) > 0 {
				return c, errors.New("a positional argument follows a named one")
			}
			v, err := p.value()
			if err != nil {
				return c, fmt.Errorf("argument %d: %w", len(c.positional)+1, err)
			}
			c.positional = append(c.positional, v)
		}
		p.space()
		if !p.eat(',') && (p.i >= len(s) || s[p.i] != ')') {
			return c, fmt.Errorf("unexpected %q after an argument", clip(s[p.i:]))
		}
	}
}

// pyParser reads Python literals: strings (any quoting, triple quotes,
// r/u/f/b prefixes taken literally), numbers, True/False/None, lists,
// tuples and dicts.
type pyParser struct {
	s string
	i int
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// keyword reads "name=" (not "=="), leaving the position after "=".
func (p *pyParser) keyword() (string, bool) {
	j := p.i
	for j < len(p.s) && isIdent(p.s[j]) {
		j++
	}
	if j == p.i || !isIdentStart(p.s[p.i]) {
		return "", false
	}
	k := skipSpace(p.s, j)
	if k < len(p.s) && (p.s[k] == '=' || p.s[k] == ':') && !(k+1 < len(p.s) && p.s[k+1] == '=') {
		key := p.s[p.i:j]
		p.i = k + 1
		return key, true
	}
	return "", false
}

func (p *pyParser) value() (any, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, errors.New("the value is missing")
	}
	c := p.s[p.i]
	switch {
	case c == '"' || c == '\'':
		return p.strings()
	case c == '[' || c == '(':
		return p.list(map[byte]byte{'[': ']', '(': ')'}[c])
	case c == '{':
		return p.dict()
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	case isIdentStart(c):
		j := p.i
		for j < len(p.s) && isIdent(p.s[j]) {
			j++
		}
		word := p.s[p.i:j]
		if j < len(p.s) && (p.s[j] == '"' || p.s[j] == '\'') && len(word) <= 2 && strings.Trim(strings.ToLower(word), "rubf") == "" {
			p.i = j // a string prefix: r"…", f'…'
			return p.str()
		}
		p.i = j
		switch word {
		case "True", "true":
			return true, nil
		case "False", "false":
			return false, nil
		case "None", "null":
			return nil, nil
		}
		return nil, fmt.Errorf("%s is a name, not a value; quote text", word)
	}
	return nil, fmt.Errorf("cannot read a value at %q", clip(p.s[p.i:]))
}

// strings reads adjacent string literals, which Python joins: "a" 'b'.
func (p *pyParser) strings() (string, error) {
	out, err := p.str()
	for err == nil {
		save := p.i
		p.space()
		if p.i >= len(p.s) || (p.s[p.i] != '"' && p.s[p.i] != '\'') {
			p.i = save
			break
		}
		var more string
		if more, err = p.str(); err == nil {
			out += more
		}
	}
	return out, err
}

func (p *pyParser) str() (string, error) {
	q := p.s[p.i]
	if strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3)) {
		delim := strings.Repeat(string(q), 3)
		end := strings.Index(p.s[p.i+3:], delim)
		if end < 0 {
			return "", errors.New("a triple-quoted string is not closed")
		}
		body := p.s[p.i+3 : p.i+3+end]
		p.i += 3 + end + 3
		return body, nil
	}
	end, body := scanString(p.s, p.i)
	if end > len(p.s) || end == len(p.s) && (end-1 <= p.i || p.s[end-1] != q) {
		return "", errors.New("a string is not closed")
	}
	p.i = end
	return body, nil
}

func (p *pyParser) number() (any, error) {
	j := p.i
	for j < len(p.s) && strings.IndexByte("+-.0123456789eE_", p.s[j]) >= 0 {
		j++
	}
	text := strings.ReplaceAll(p.s[p.i:j], "_", "")
	p.i = j
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, fmt.Errorf("%q is not a number", text)
	}
	return f, nil
}

func (p *pyParser) list(close byte) ([]any, error) {
	p.i++
	out := []any{}
	for {
		p.space()
		if p.eat(close) {
			return out, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.space()
		if !p.eat(',') && (p.i >= len(p.s) || p.s[p.i] != close) {
			return nil, errors.New("a list is not closed")
		}
	}
}

func (p *pyParser) dict() (map[string]any, error) {
	p.i++
	out := map[string]any{}
	for {
		p.space()
		if p.eat('}') {
			return out, nil
		}
		var key string
		if p.i < len(p.s) && (p.s[p.i] == '"' || p.s[p.i] == '\'') {
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			key = k
			p.space()
			if !p.eat(':') {
				return nil, errors.New("a dict key has no ':'")
			}
		} else if k, ok := p.keyword(); ok {
			key = k
		} else {
			return nil, errors.New("cannot read a dict key")
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out[key] = v
		p.space()
		if !p.eat(',') && (p.i >= len(p.s) || p.s[p.i] != '}') {
			return nil, errors.New("a dict is not closed")
		}
	}
}

func clip(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}
