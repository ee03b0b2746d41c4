package calls

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Tools is what Parse knows of the tools on offer.
type Tools struct {
	// IsTool reports whether a name (as written) means a tool.
	IsTool func(string) bool
	// Names are the tools' own names (optional): a tag counts as a call
	// only when it names one of them, or a long alias.
	Names []string
	// Primary returns the argument a call written with one bare value
	// means (run_sql("SELECT …") → "sql"), or "" when the tool has no
	// single required argument. Nil means never.
	Primary func(string) string
}

// Parsed is what Parse read in a reply.
type Parsed struct {
	Calls []Found
	// Rest is the reply's text with the calls cut out — or, when the
	// model "called" final_answer, that answer.
	Rest string
	// Format names the family the calls were written in ("json",
	// "python", "llama-function", "react", "final-answer"), "" if none.
	Format string
	// Bounce, when set, says that the reply tried to call a tool in a way
	// that cannot be read unambiguously, and what was wrong; nothing was
	// run. The caller sends it back with the format to use.
	Bounce string
}

// Format families.
const (
	FormatJSON   = "json"
	FormatPython = "python"
	FormatLlama  = "llama-function"
	FormatReAct  = "react"
	FormatXML    = "xml"
	FormatTagged = "tagged" // a tool's name in a token or tag: DeepSeek, gpt-oss, Mistral [ARGS], <invoke>
	FormatFinal  = "final-answer"
)

// Parse finds the tool calls a reply wrote as text, in any of the families
// small models use: JSON objects (bare, fenced, in <tool_call> tags, after
// <|python_tag|>), Python-style calls (bare, in a ```tool_code fence or a
// [list]), Llama's <function=name>{…}</function>, and ReAct's
// "Action:"/"Action Input:" lines. A call counts only when it names a tool
// and stands on its own line, so an answer that shows SQL or mentions a
// tool's name stays an answer.
func Parse(content string, t Tools) Parsed {
	if t.Primary == nil {
		t.Primary = func(string) string { return "" }
	}
	p := parse(content, t)
	for i, f := range p.Calls {
		p.Calls[i].Args = objectArgs(f.Name, f.Args, t)
	}
	return p
}

// objectArgs makes arguments given as one bare value ("action_input":
// "SELECT …") the tool's one required argument.
func objectArgs(name string, args json.RawMessage, t Tools) json.RawMessage {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return args
	}
	if _, isObj := v.(map[string]any); isObj {
		return args
	}
	key := t.Primary(name)
	if s, ok := v.(string); ok && key != "" {
		b, _ := json.Marshal(map[string]string{key: unfence(s)})
		return b
	}
	return args
}

func parse(content string, t Tools) Parsed {
	text := stripSpecial(content)
	for _, try := range []func(string, Tools) (Parsed, bool){llamaFunctions, taggedCalls, react, pythonCalls, xmlCalls} {
		if p, ok := try(text, t); ok {
			return p
		}
	}
	found, rest := Extract(text, withFinal(t))
	if len(found) > 0 {
		return finalAnswer(Parsed{Calls: found, Rest: rest, Format: FormatJSON})
	}
	if name, ok := Attempted(text, t.IsTool); ok {
		return Parsed{Rest: content, Bounce: fmt.Sprintf("Your reply looks like a JSON call to %s, but it is not valid JSON, so nothing was run.", name)}
	}
	return Parsed{Rest: content}
}

// special are the chat-template tokens Llama models leak into content.
var special = []string{"<|python_tag|>", "<|eom_id|>", "<|eot_id|>", "<|start_header_id|>assistant<|end_header_id|>"}

func stripSpecial(s string) string {
	for _, tok := range special {
		s = strings.ReplaceAll(s, tok, "\n")
	}
	if strings.ContainsAny(s, "\n") && s != "" {
		return strings.Trim(s, "\n")
	}
	return s
}

// isFinal reports whether a name is the "final answer" pseudo-tool some
// agent frameworks teach models to call.
func isFinal(name string) bool {
	switch squash(name) {
	case "finalanswer", "final", "answer", "respond", "finish", "directlyanswer", "directanswer":
		return true
	}
	return false
}

// finalAnswer turns a lone call to final_answer into the answer it carries.
func finalAnswer(p Parsed) Parsed {
	if len(p.Calls) != 1 || !isFinal(p.Calls[0].Name) {
		return p
	}
	var m map[string]any
	if json.Unmarshal(p.Calls[0].Args, &m) != nil {
		return p
	}
	for _, k := range []string{"answer", "text", "content", "response", "final_answer", "output", "result"} {
		if s, ok := m[k].(string); ok {
			return Parsed{Rest: strings.TrimSpace(s), Format: FormatFinal}
		}
	}
	if len(m) == 1 {
		for _, v := range m {
			if s, ok := v.(string); ok {
				return Parsed{Rest: strings.TrimSpace(s), Format: FormatFinal}
			}
		}
	}
	return p
}

// withFinal makes IsTool accept the final-answer pseudo-tool too.
func withFinal(t Tools) func(string) bool {
	return func(n string) bool { return t.IsTool(n) || isFinal(n) }
}

var llamaOpen = regexp.MustCompile(`<function=([\w.\-]+)>`)

// llamaFunctions reads Llama 3.x's <function=name>{json}</function>.
func llamaFunctions(s string, t Tools) (Parsed, bool) {
	locs := llamaOpen.FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 {
		return Parsed{}, false
	}
	var p Parsed
	var rest strings.Builder
	prev := 0
	for _, l := range locs {
		if l[0] < prev {
			continue
		}
		name := s[l[2]:l[3]]
		body := s[l[1]:]
		end := strings.Index(body, "</function>")
		after := l[1] + len(body)
		if end >= 0 {
			after = l[1] + end + len("</function>")
			body = body[:end]
		}
		rest.WriteString(s[prev:l[0]])
		prev = after
		raw, ok := taggedArgs(body)
		if !ok {
			p.Bounce = fmt.Sprintf("Your reply looks like a call to %s in Llama's <function=…> form, but its arguments are not one valid JSON object, so nothing was run.", name)
			return Parsed{Rest: s, Bounce: p.Bounce, Format: FormatLlama}, true
		}
		p.Calls = append(p.Calls, Found{Name: name, Args: raw})
	}
	rest.WriteString(s[prev:])
	p.Rest, p.Format = clean(rest.String()), FormatLlama
	return finalAnswer(p), true
}

var (
	reactAction = regexp.MustCompile(`(?mi)^[ \t*]*Action[ \t*]*:[ \t*]*(.*)$`)
	reactInput  = regexp.MustCompile(`(?i)^[ \t*]*Action[ \t_]*Input[ \t*]*:[ \t*]*`)
	reactStop   = regexp.MustCompile(`(?mi)^[ \t*]*(?:Observation|Thought|Action|Final[ \t]+Answer)[ \t*]*:`)
	reactFinal  = regexp.MustCompile(`(?mi)^[ \t*]*Final[ \t]+Answer[ \t*]*:[ \t*]*`)
)

// react reads ReAct text: "Action: run_sql" then "Action Input: {…}" (or
// the bare value of the tool's main argument). What the model wrote after
// the input (a made-up "Observation:") is dropped. A reply with only
// "Final Answer:" becomes that answer.
func react(s string, t Tools) (Parsed, bool) {
	m := reactAction.FindStringSubmatchIndex(s)
	if m == nil {
		if f := reactFinal.FindStringIndex(s); f != nil {
			return Parsed{Rest: strings.TrimSpace(s[f[1]:]), Format: FormatFinal}, true
		}
		return Parsed{}, false
	}
	if f := reactFinal.FindStringIndex(s); f != nil && f[0] < m[0] {
		return Parsed{Rest: strings.TrimSpace(s[f[1]:]), Format: FormatFinal}, true
	}
	line := strings.Trim(strings.TrimSpace(s[m[2]:m[3]]), "`*")
	before := strings.TrimSpace(s[:m[0]])
	next := s[m[1]:]
	if i := strings.IndexByte(next, '\n'); i >= 0 {
		next = next[i+1:]
	} else {
		next = ""
	}
	// "Action: run_sql(sql=…)" or "Action: {json}" on the one line.
	if c, err := parsePyCall(line, 0); err == nil {
		if f, bounce := fromPy(c, t); bounce == "" {
			return finalAnswer(Parsed{Calls: []Found{f}, Rest: before, Format: FormatReAct}), true
		}
	}
	if found, _ := Extract(line, withFinal(t)); len(found) == 1 {
		return finalAnswer(Parsed{Calls: found, Rest: before, Format: FormatReAct}), true
	}
	name := line
	if i := strings.IndexByte(line, '['); i > 0 && strings.HasSuffix(line, "]") && isCallName(line[:i]) && t.IsTool(line[:i]) {
		// MRKL's "Action: run_sql[SELECT …]".
		if args, ok := reactArgs(line[:i], strings.TrimSpace(line[i+1:len(line)-1]), t); ok {
			return Parsed{Calls: []Found{{Name: line[:i], Args: args}}, Rest: before, Format: FormatReAct}, true
		}
	}
	if !isCallName(name) {
		return Parsed{}, false // "Action: the model should …" is prose
	}
	in := reactInput.FindStringIndex(strings.TrimLeft(next, "\r\n"))
	if in == nil {
		if !t.IsTool(name) {
			return Parsed{}, false
		}
		return Parsed{Rest: s, Format: FormatReAct, Bounce: fmt.Sprintf("Your reply names the action %s but gives no \"Action Input:\" line, so nothing was run.", name)}, true
	}
	body := strings.TrimLeft(next, "\r\n")[in[1]:]
	if stop := reactStop.FindStringIndex(body); stop != nil {
		body = body[:stop[0]]
	}
	body = strings.TrimSpace(body)
	if isFinal(name) || strings.EqualFold(name, "final answer") {
		return Parsed{Rest: unquote(body), Format: FormatFinal}, true
	}
	if !t.IsTool(name) {
		return Parsed{}, false
	}
	args, ok := reactArgs(name, body, t)
	if !ok {
		return Parsed{Rest: s, Format: FormatReAct, Bounce: fmt.Sprintf("Your reply calls %s, but its Action Input is not a JSON object of arguments, so nothing was run.", name)}, true
	}
	return Parsed{Calls: []Found{{Name: name, Args: args}}, Rest: before, Format: FormatReAct}, true
}

// reactArgs reads an Action Input: a JSON object, or the bare value of the
// tool's one required argument.
func reactArgs(name, body string, t Tools) (json.RawMessage, bool) {
	if body == "" {
		return json.RawMessage("{}"), true
	}
	unf := unfence(body)
	if strings.HasPrefix(unf, "{") {
		if raw, ok := Repair(unf); ok && strings.HasPrefix(string(raw), "{") {
			return raw, true
		}
		return nil, false
	}
	key := t.Primary(name)
	if key == "" {
		return nil, false
	}
	b, _ := json.Marshal(map[string]string{key: unquote(unf)})
	return b, true
}

// unquote strips one pair of matching quotes around s.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		if _, body := scanString(s, 0); body != "" {
			return body
		}
	}
	return s
}

// isCallName reports whether s could be a tool name: one identifier.
func isCallName(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdent(s[i]) && s[i] != '.' && s[i] != '-' {
			return false
		}
	}
	return true
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
