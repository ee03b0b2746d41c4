package calls

import (
	"encoding/json"
	"regexp"
	"strings"
)

// XML-ish calls: the tool's name as a tag (<run_sql><sql>…</sql></run_sql>,
// or a JSON body), or the name and the arguments in tags of their own
// (<name>run_sql</name><arguments>{…}</arguments>).

var (
	xmlOpen     = regexp.MustCompile(`<([A-Za-z_][\w.\-]*)>`)
	xmlChild    = regexp.MustCompile(`(?s)<([A-Za-z_][\w\-]*)>(.*?)</([A-Za-z_][\w\-]*)>`)
	xmlNameTag  = regexp.MustCompile(`(?s)<(name|tool_name|function_name|tool|function)>\s*([\w.\-]+)\s*</(?:name|tool_name|function_name|tool|function)>\s*(?:<(arguments|parameters|args|input|params)>(.*?)</(?:arguments|parameters|args|input|params)>)?`)
	xmlWrappers = []string{"tool_call", "tool_calls", "function_call", "function_calls", "tool_use", "tools", "call", "invoke", "action"}
)

// xmlCalls reads XML-ish calls; it returns false when there are none.
func xmlCalls(s string, t Tools) (Parsed, bool) {
	var p Parsed
	first := -1
	for _, m := range xmlNameTag.FindAllStringSubmatchIndex(s, -1) {
		name := s[m[4]:m[5]]
		if !t.IsTool(name) && !isFinal(name) {
			continue
		}
		args := json.RawMessage("{}")
		if m[8] >= 0 {
			a, ok := xmlArgs(s[m[8]:m[9]], name, t)
			if !ok {
				return Parsed{Rest: s, Format: FormatXML, Bounce: "Your reply names the tool " + name + " in tags, but its arguments cannot be read, so nothing was run."}, true
			}
			args = a
		}
		p.Calls = append(p.Calls, Found{Name: name, Args: args})
		if first < 0 {
			first = m[0]
		}
	}
	if len(p.Calls) == 0 {
		for i := 0; i < len(s); {
			m := xmlOpen.FindStringSubmatchIndex(s[i:])
			if m == nil {
				break
			}
			name := s[i+m[2] : i+m[3]]
			closing := "</" + name + ">"
			end := strings.Index(s[i+m[1]:], closing)
			if end < 0 || isWrapper(name) || (!t.IsTool(name) && !isFinal(name)) || !exactish(name, t) {
				i += m[1]
				continue
			}
			body := s[i+m[1] : i+m[1]+end]
			args, ok := xmlArgs(body, name, t)
			if !ok {
				return Parsed{Rest: s, Format: FormatXML, Bounce: "Your reply names the tool " + name + " in a tag, but its arguments cannot be read, so nothing was run."}, true
			}
			p.Calls = append(p.Calls, Found{Name: name, Args: args})
			if first < 0 {
				first = i + m[0]
			}
			i += m[1] + end + len(closing)
		}
	}
	if len(p.Calls) == 0 {
		return Parsed{}, false
	}
	p.Rest, p.Format = leadIn(stripWrappers(s[:first])), FormatXML
	return finalAnswer(p), true
}

// exactish reports whether a tag names a tool closely enough to be taken
// for one: its squashed form is a tool's, or a long alias (execute_query),
// not a short word an argument tag may be (<sql>, <query>, <table>) nor
// merely a near spelling.
func exactish(name string, t Tools) bool {
	k := squash(name)
	for _, n := range t.Names {
		if squash(n) == k {
			return true
		}
	}
	return len(k) >= 8 && t.IsTool(name)
}

func isWrapper(name string) bool {
	for _, w := range xmlWrappers {
		if strings.EqualFold(name, w) {
			return true
		}
	}
	return false
}

func stripWrappers(s string) string {
	for _, w := range xmlWrappers {
		s = strings.ReplaceAll(s, "<"+w+">", "")
	}
	return s
}

// xmlArgs reads a call's body: a JSON object, child tags (one per
// argument), or the bare value of the tool's one required argument.
func xmlArgs(body, name string, t Tools) (json.RawMessage, bool) {
	b := strings.TrimSpace(body)
	if b == "" {
		return json.RawMessage("{}"), true
	}
	if strings.HasPrefix(b, "{") {
		raw, ok := Repair(b)
		return raw, ok && strings.HasPrefix(string(raw), "{")
	}
	if strings.HasPrefix(b, "<") {
		args := map[string]any{}
		for _, m := range xmlChild.FindAllStringSubmatch(b, -1) {
			if m[1] != m[3] {
				continue
			}
			v := strings.TrimSpace(m[2])
			var js any
			if (strings.HasPrefix(v, "[") || strings.HasPrefix(v, "{")) && json.Unmarshal([]byte(v), &js) == nil {
				args[m[1]] = js
			} else {
				args[m[1]] = unfence(v)
			}
		}
		if len(args) == 0 {
			return nil, false
		}
		out, err := json.Marshal(args)
		return out, err == nil
	}
	key := t.Primary(name)
	if isFinal(name) {
		key = "answer"
	}
	if key == "" {
		return nil, false
	}
	out, _ := json.Marshal(map[string]string{key: unfence(b)})
	return out, true
}
