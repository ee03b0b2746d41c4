package calls

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

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
