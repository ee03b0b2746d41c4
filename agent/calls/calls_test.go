package calls

import (
	"encoding/json"
	"testing"
)

func TestRepair(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{`{"sql": "SELECT 1"}`, `{"sql": "SELECT 1"}`, true},
		{`{"sql": "SELECT 1",}`, `{"sql": "SELECT 1"}`, true},
		{`{'sql': 'SELECT 1'}`, `{"sql": "SELECT 1"}`, true},
		{`{sql: "SELECT 1", n: 5}`, `{"sql": "SELECT 1", "n": 5}`, true},
		{`{'sql': 'SELECT "Name" FROM t WHERE x = \'a\''}`, `{"sql": "SELECT \"Name\" FROM t WHERE x = 'a'"}`, true},
		{`{"flag": True, "none": None, "list": [1, 2,],}`, `{"flag": true, "none": null, "list": [1, 2]}`, true},
		{`"{\"sql\": \"SELECT 1\"}"`, `{"sql": "SELECT 1"}`, true},
		{`{"sql": "SELECT 1"`, ``, false},
		{`{"sql": SELECT 1}`, ``, false},
		{``, ``, false},
	}
	for _, c := range cases {
		got, ok := Repair(c.in)
		if ok != c.ok || (ok && !sameJSON(t, got, c.want)) {
			t.Errorf("Repair(%s) = %s, %v; want %s, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func sameJSON(t *testing.T, a json.RawMessage, b string) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

func TestExtract(t *testing.T) {
	known := map[string]bool{"run_sql": true, "describe_table": true}
	isTool := func(n string) bool { return known[n] }
	cases := []struct {
		name    string
		content string
		calls   []string // name + args, compact
		rest    string
	}{
		{"bare object", `{"name": "run_sql", "arguments": {"sql": "SELECT 1"}}`, []string{`run_sql {"sql":"SELECT 1"}`}, ""},
		{"fenced with prose", "Let me check.\n```json\n{\"name\": \"describe_table\", \"arguments\": {\"table\": \"orders\"}}\n```", []string{`describe_table {"table":"orders"}`}, "Let me check."},
		{"two calls, one per line", "{\"tool\": \"run_sql\", \"args\": {\"sql\": \"SELECT 1\"}}\n{\"tool\": \"run_sql\", \"args\": {\"sql\": \"SELECT 2\"}}", []string{`run_sql {"sql":"SELECT 1"}`, `run_sql {"sql":"SELECT 2"}`}, ""},
		{"array", `[{"name": "run_sql", "parameters": {"sql": "SELECT 1"}}, {"name": "describe_table", "parameters": {"table": "t"}}]`, []string{`run_sql {"sql":"SELECT 1"}`, `describe_table {"table":"t"}`}, ""},
		{"arguments as a string", `{"name": "run_sql", "arguments": "{\"sql\": \"SELECT 1\"}"}`, []string{`run_sql {"sql":"SELECT 1"}`}, ""},
		{"tool_call tags, single quotes", `<tool_call>{'name': 'run_sql', 'arguments': {'sql': 'SELECT 1',}}</tool_call>`, []string{`run_sql {"sql":"SELECT 1"}`}, ""},
		{"openai shape", `{"type": "function", "function": {"name": "run_sql", "arguments": "{\"sql\":\"SELECT 1\"}"}}`, []string{`run_sql {"sql":"SELECT 1"}`}, ""},
		{"tool_calls wrapper", `{"tool_calls": [{"function": {"name": "run_sql", "arguments": {"sql": "SELECT 1"}}}]}`, []string{`run_sql {"sql":"SELECT 1"}`}, ""},
		{"name as key", `{"run_sql": {"sql": "SELECT 1"}}`, []string{`run_sql {"sql":"SELECT 1"}`}, ""},
		{"arguments beside the name", `{"name": "run_sql", "sql": "SELECT 1"}`, []string{`run_sql {"sql":"SELECT 1"}`}, ""},
		{"data, not a call", `The result was {"north": 4, "south": 2}.`, nil, `The result was {"north": 4, "south": 2}.`},
		{"unknown tool stays text", `{"name": "fly", "arguments": {}}`, nil, `{"name": "fly", "arguments": {}}`},
		{"plain answer", "North leads.\n\nFindings:\n- North [q1]", nil, "North leads.\n\nFindings:\n- North [q1]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			found, rest := Extract(c.content, isTool)
			var got []string
			for _, f := range found {
				var v any
				if err := json.Unmarshal(f.Args, &v); err != nil {
					t.Fatalf("args %s: %v", f.Args, err)
				}
				b, _ := json.Marshal(v)
				got = append(got, f.Name+" "+string(b))
			}
			if len(got) != len(c.calls) {
				t.Fatalf("calls = %v, want %v", got, c.calls)
			}
			for i := range got {
				if got[i] != c.calls[i] {
					t.Errorf("call %d = %s, want %s", i, got[i], c.calls[i])
				}
			}
			if rest != c.rest {
				t.Errorf("rest = %q, want %q", rest, c.rest)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	names := []string{"run_sql", "describe_table", "list_datasets", "create_chart", "ask_user", "profile_data"}
	aliases := AliasIndex(map[string][]string{
		"run_sql": {"sql", "executesql"}, "describe_table": {"getschema"}, "list_datasets": {"listtables"},
		"create_chart": {"plot"}, "ask_user": {"askclarifyingquestion"}, "search_schema": {"search"},
	})
	cases := []struct{ in, want string }{
		{"run_sql", "run_sql"},
		{"RunSQL", "run_sql"},
		{"run-sql", "run_sql"},
		{"functions.run_sql", "run_sql"},
		{"execute_sql", "run_sql"},
		{"sql", "run_sql"},
		{"describe_tabel", "describe_table"},
		{"get_schema", "describe_table"},
		{"list_tables", "list_datasets"},
		{"plot", "create_chart"},
		{"ask_clarifying_question", "ask_user"},
		{"search", ""}, // the alias of a tool not offered
		{"fly_to_moon", ""},
		{"x", ""},
	}
	for _, c := range cases {
		got, ok := Match(c.in, names, aliases)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Match(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
}
