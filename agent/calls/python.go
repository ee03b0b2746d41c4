package calls

import (
	"encoding/json"
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

// pythonCalls reads Python-style calls standing on their own lines: bare,
// in a ```tool_code / ```python fence, as a [list], or wrapped in
// print(…). A call to a tool whose arguments cannot be read is bounced
// when it is the first thing in the reply.
func pythonCalls(s string, t Tools) (Parsed, bool) {
	var p Parsed
	var rest strings.Builder
	prev := 0
	for i := 0; i < len(s); {
		lineEnd := strings.IndexByte(s[i:], '\n')
		if lineEnd < 0 {
			lineEnd = len(s)
		} else {
			lineEnd += i
		}
		start := skipPrefix(s, i, lineEnd)
		cs, end, err := callRun(s, start, t)
		var u *unreadable
		if errors.As(err, &u) || (err != nil && len(p.Calls) == 0 && onlyThing(s, i, start)) {
			return Parsed{Rest: s, Format: FormatPython, Bounce: bounceText(err)}, true
		}
		if len(cs) == 0 {
			i = lineEnd + 1
			continue
		}
		rest.WriteString(s[prev:i])
		p.Calls = append(p.Calls, cs...)
		prev = end
		i = end
	}
	if len(p.Calls) == 0 {
		return Parsed{}, false
	}
	rest.WriteString(s[prev:])
	p.Rest, p.Format = clean(rest.String()), FormatPython
	return finalAnswer(p), true
}

// unreadable is a call that was surely meant as one but cannot be read
// unambiguously.
type unreadable struct{ msg string }

func (u *unreadable) Error() string { return u.msg }

func bounceText(err error) string {
	var u *unreadable
	if errors.As(err, &u) {
		return u.msg
	}
	return fmt.Sprintf("Your reply looks like a Python-style call, but it cannot be read (%v), so nothing was run.", err)
}

// skipPrefix skips what may precede a call on its line: spaces, "[",
// backticks, "print(".
func skipPrefix(s string, i, lineEnd int) int {
	for i < lineEnd {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '[' || s[i] == '`':
			i++
		case strings.HasPrefix(s[i:], "print("):
			i += len("print(")
		case strings.HasPrefix(s[i:], "<tool_call>"):
			i += len("<tool_call>")
		case strings.HasPrefix(s[i:], "<|tool_call|>"):
			i += len("<|tool_call|>")
		case strings.HasPrefix(s[i:], "[TOOL_CALLS]"):
			i += len("[TOOL_CALLS]")
		default:
			return i
		}
	}
	return i
}

// onlyThing reports whether nothing but fence/prefix junk precedes s[start]
// in the reply, so a failed call there was surely meant as a call.
func onlyThing(s string, lineStart, start int) bool {
	before := strings.TrimSpace(s[:lineStart])
	for _, f := range []string{"```tool_code", "```python", "```py", "```"} {
		before = strings.TrimSpace(strings.TrimPrefix(before, f))
	}
	return before == "" && start < len(s)
}

// callRun reads one or more calls to tools from s[start] (a [list] or
// "a(…), b(…)") and checks that only closing junk follows them on their
// line. It returns the calls and the index after that line's end.
func callRun(s string, start int, t Tools) ([]Found, int, error) {
	var out []Found
	i := start
	for {
		c, err := parsePyCall(s, i)
		if err == errNotCall {
			return nil, 0, nil
		}
		if !t.IsTool(c.name) && !isFinal(c.name) {
			return nil, 0, nil
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", c.name, err)
		}
		f, bounce := fromPy(c, t)
		if bounce != "" {
			return nil, c.end, &unreadable{bounce}
		}
		out = append(out, f)
		i = c.end
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ',' || s[i] == ';') {
			i++
		}
		if i < len(s) && isIdentStart(s[i]) {
			continue
		}
		for i < len(s) {
			if strings.IndexByte(" \t\r])`;", s[i]) >= 0 {
				i++
			} else if tag := closingTag(s[i:]); tag != "" {
				i += len(tag)
			} else {
				break
			}
		}
		if i < len(s) && s[i] != '\n' {
			return nil, 0, nil // prose follows on the line: a mention, not a call
		}
		return out, i, nil
	}
}

// closingTag is a tag that may close a call's line, if s starts with one.
func closingTag(s string) string {
	for _, tag := range []string{"</tool_call>", "<|/tool_call|>", "</code>"} {
		if strings.HasPrefix(s, tag) {
			return tag
		}
	}
	return ""
}

// fromPy turns a parsed Python call into a Found, or says why it cannot be
// read unambiguously.
func fromPy(c pyCall, t Tools) (Found, string) {
	args := map[string]any{}
	for k, v := range c.keywords {
		args[k] = v
	}
	switch len(c.positional) {
	case 0:
	case 1:
		key := t.Primary(c.name)
		if isFinal(c.name) {
			key = "answer"
		}
		if key == "" {
			return Found{}, fmt.Sprintf("Your call to %s passes a value without naming its argument, so nothing was run.", c.name)
		}
		if _, dup := args[key]; dup {
			return Found{}, fmt.Sprintf("Your call to %s gives %s twice, so nothing was run.", c.name, key)
		}
		args[key] = c.positional[0]
	default:
		return Found{}, fmt.Sprintf("Your call to %s passes %d values without naming their arguments, so nothing was run.", c.name, len(c.positional))
	}
	b, err := json.Marshal(args)
	if err != nil {
		return Found{}, fmt.Sprintf("The arguments of your call to %s cannot be read, so nothing was run.", c.name)
	}
	return Found{Name: c.name, Args: b}, ""
}
