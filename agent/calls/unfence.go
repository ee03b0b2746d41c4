package calls

import (
	"encoding/json"
	"strings"
)

// Unfence removes Markdown code fences that a model wrapped around a whole
// string argument ({"sql": "```sql\nSELECT 1\n```"} → {"sql": "SELECT 1"}),
// and a single pair of backticks around a value that has no other. It
// reports which arguments it changed; args that are not a JSON object are
// returned as they are.
func Unfence(args json.RawMessage) (json.RawMessage, []string) {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return args, nil
	}
	var changed []string
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			continue
		}
		if u := unfence(s); u != strings.TrimSpace(s) {
			m[k] = u
			changed = append(changed, k)
		}
	}
	if len(changed) == 0 {
		return args, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return args, nil
	}
	return b, changed
}

// unfence returns s without a fence around all of it: "```lang\n…\n```",
// "```…```" on one line, or "`…`" when s holds no other backtick.
func unfence(s string) string {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "```") {
		body := t[3:]
		if end := strings.LastIndex(body, "```"); end >= 0 && strings.TrimSpace(body[end+3:]) == "" {
			body = body[:end]
		} else if end >= 0 {
			return t // text follows the fence: not a fenced value
		}
		// A language tag: the first line when it is one word.
		if nl := strings.IndexByte(body, '\n'); nl >= 0 {
			first := strings.TrimSpace(body[:nl])
			if first == "" || (isCallName(first) && !strings.Contains(first, ".") && !sqlVerb[strings.ToLower(first)]) {
				body = body[nl+1:]
			}
		} else if sp := strings.IndexByte(body, ' '); sp > 0 && strings.EqualFold(body[:sp], "sql") {
			body = body[sp+1:]
		}
		return strings.TrimSpace(body)
	}
	if len(t) >= 2 && t[0] == '`' && t[len(t)-1] == '`' && strings.Count(t, "`") == 2 {
		return strings.TrimSpace(t[1 : len(t)-1])
	}
	return t
}

// sqlVerb are words a query may start its first line with alone, which are
// not a fence's language tag.
var sqlVerb = map[string]bool{"select": true, "with": true, "from": true, "show": true, "describe": true,
	"pragma": true, "explain": true, "values": true, "table": true, "summarize": true}
