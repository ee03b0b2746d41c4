// Package calls recovers tool calls that models write as text instead of
// using native tool calling — a JSON object, fenced JSON, several calls in
// one message, <tool_call> tags — repairs almost-JSON arguments, and
// matches near-miss tool names to the tools on offer.
package calls

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Found is a tool call recovered from text.
type Found struct {
	Name string
	Args json.RawMessage // a JSON object ("{}" when none was given)
	// Repaired is true when the JSON had to be repaired to parse.
	Repaired bool
}

// Extract finds the tool calls written in content and returns them with
// the content that remains once they are cut out. A JSON value counts as a
// call only when it names a tool (under "name", "tool", "function",
// "tool_name" or "action", or as its only key) that isTool accepts — so
// JSON that is data, not a call, stays in the text.
func Extract(content string, isTool func(string) bool) ([]Found, string) {
	var found []Found
	var rest strings.Builder
	i := 0
	for i < len(content) {
		start := strings.IndexAny(content[i:], "{[")
		if start < 0 {
			break
		}
		start += i
		end := balanced(content, start)
		if end < 0 {
			break
		}
		calls, repaired := decode(content[start:end], isTool)
		if len(calls) == 0 {
			rest.WriteString(content[i : start+1])
			i = start + 1
			continue
		}
		for j := range calls {
			calls[j].Repaired = calls[j].Repaired || repaired
		}
		found = append(found, calls...)
		rest.WriteString(content[i:start])
		i = end
	}
	if len(found) == 0 {
		return nil, content
	}
	rest.WriteString(content[i:])
	return found, clean(rest.String())
}

// clean removes what is left of fences and tags around extracted calls.
func clean(s string) string {
	for _, junk := range []string{"```json", "```JSON", "```tool_code", "```python", "```py", "```", "<tool_call>", "</tool_call>", "<|tool_call|>", "<|/tool_call|>", "[TOOL_CALLS]", "functools"} {
		s = strings.ReplaceAll(s, junk, "")
	}
	return strings.TrimSpace(s)
}

// balanced returns the index just after the JSON-ish value opening at
// s[start] ('{' or '['), honouring quoted strings of both kinds, or -1.
func balanced(s string, start int) int {
	depth := 0
	for i := start; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\'':
			end, _ := scanString(s, i)
			i = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// decode reads text as one call, a list of calls, or {"tool_calls": […]}.
func decode(text string, isTool func(string) bool) ([]Found, bool) {
	raw, ok := Repair(text)
	if !ok {
		return nil, false
	}
	repaired := string(raw) != strings.TrimSpace(text)
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	var out []Found
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			if tc, ok := x["tool_calls"].([]any); ok {
				walk(tc)
				return
			}
			if f, ok := one(x, isTool); ok {
				out = append(out, f)
			}
		}
	}
	walk(v)
	return out, repaired
}

var (
	nameKeys = []string{"name", "tool", "tool_name", "function", "action", "recipient_name"}
	argKeys  = []string{"arguments", "parameters", "args", "input", "tool_input", "action_input", "params"}
)

// one reads a single call object in any of the shapes models use.
func one(m map[string]any, isTool func(string) bool) (Found, bool) {
	for _, k := range []string{"function", "function_call", "tool_call", "call"} {
		if fn, ok := m[k].(map[string]any); ok { // OpenAI's own shape, and its older function_call
			return one(fn, isTool)
		}
	}
	for _, k := range nameKeys {
		name, ok := m[k].(string)
		if !ok || !isTool(name) {
			continue
		}
		for _, a := range argKeys {
			if v, ok := m[a]; ok {
				return Found{Name: name, Args: argsObject(v)}, true
			}
		}
		// The arguments may sit beside the name.
		rest := map[string]any{}
		for key, v := range m {
			if key != k && key != "type" && key != "id" {
				rest[key] = v
			}
		}
		return Found{Name: name, Args: argsObject(rest)}, true
	}
	if len(m) == 1 { // {"run_sql": {"sql": …}}
		for name, v := range m {
			if _, isObj := v.(map[string]any); isObj && isTool(name) {
				return Found{Name: name, Args: argsObject(v)}, true
			}
		}
	}
	return Found{}, false
}

// argsObject turns a decoded arguments value into a JSON object.
func argsObject(v any) json.RawMessage {
	switch x := v.(type) {
	case nil:
		return json.RawMessage("{}")
	case string:
		if raw, ok := Repair(x); ok && strings.HasPrefix(string(raw), "{") {
			return raw
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}

var attempt = regexp.MustCompile(`"(?:name|tool|tool_name|function)"\s*:\s*"([^"]+)"`)

// Attempted reports whether content that Extract found no call in still
// looks like a tool call the model tried to write — it starts like JSON
// (or a fence or <tool_call> tag) and names a tool — and returns that
// tool's name as written.
func Attempted(content string, isTool func(string) bool) (string, bool) {
	t := strings.TrimSpace(content)
	for _, p := range []string{"```json", "```JSON", "```tool_code", "```python", "```py", "```", "<tool_call>"} {
		t = strings.TrimSpace(strings.TrimPrefix(t, p))
	}
	if !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[") {
		return "", false
	}
	m := attempt.FindStringSubmatch(t)
	if m == nil || !isTool(m[1]) {
		return "", false
	}
	return m[1], true
}
