package calls

import (
	"encoding/json"
	"strings"
	"testing"
)

// testAliases are the aliases the parse tests use, as the tools declare
// them.
var testAliases = AliasIndex(map[string][]string{
	"run_sql":        {"sql", "query", "runquery", "executesql", "execute", "executequery", "sqlquery", "runsqlquery", "querydatabase", "sqlexecutor"},
	"describe_table": {"describe", "getschema", "tableschema", "gettableschema", "getdetailedschema", "schema", "describetables"},
	"list_datasets":  {"listtables", "tables", "showtables", "listdatasets", "getdatasets"},
	"create_chart":   {"chart", "plot", "visualize", "createvisualization", "makechart", "drawchart", "plotchart", "createplot"},
})

func testTools() Tools {
	known := map[string]string{"run_sql": "sql", "describe_table": "table", "create_chart": "", "list_datasets": ""}
	names := []string{"run_sql", "describe_table", "create_chart", "list_datasets"}
	return Tools{
		Names:  names,
		IsTool: func(n string) bool { _, ok := Match(n, names, testAliases); return ok },
		Primary: func(n string) string {
			m, _ := Match(n, names, testAliases)
			return known[m]
		},
	}
}

func TestParse(t *testing.T) {
	cases := []struct {
		name    string
		content string
		calls   []string // name + compact args
		rest    string
		format  string
		bounce  bool
	}{
		{"python bare", `run_sql(sql="SELECT count(*) FROM orders")`, []string{`run_sql {"sql":"SELECT count(*) FROM orders"}`}, "", FormatPython, false},
		{"python tool_code fence", "```tool_code\nrun_sql(sql='SELECT 1')\n```", []string{`run_sql {"sql":"SELECT 1"}`}, "", FormatPython, false},
		{"python print wrapper", "```tool_code\nprint(describe_table(table=\"orders\"))\n```", []string{`describe_table {"table":"orders"}`}, "", FormatPython, false},
		{"python list of calls", `[describe_table(table="orders"), run_sql(sql="SELECT 1")]`, []string{`describe_table {"table":"orders"}`, `run_sql {"sql":"SELECT 1"}`}, "", FormatPython, false},
		{"python positional primary", `run_sql("SELECT 1")`, []string{`run_sql {"sql":"SELECT 1"}`}, "", FormatPython, false},
		{"python triple quotes and literals", "Let me look.\nrun_sql(sql=\"\"\"\nSELECT 1\n\"\"\", limit=5, dry=False, tags=['a', 'b'])", []string{`run_sql {"dry":false,"limit":5,"sql":"\nSELECT 1\n","tags":["a","b"]}`}, "Let me look.", FormatPython, false},
		{"python positional without a primary bounces", `create_chart("bar", "x")`, nil, "", FormatPython, true},
		{"python unclosed bounces", `run_sql(sql="SELECT 1"`, nil, "", FormatPython, true},
		{"python mention in prose stays text", "I used run_sql(sql=\"SELECT 1\") to count them; there are 40.", nil, "I used run_sql(sql=\"SELECT 1\") to count them; there are 40.", "", false},
		{"python unknown function stays text", `print(sum([1, 2]))`, nil, `print(sum([1, 2]))`, "", false},
		{"llama function tag", `<function=run_sql>{"sql": "SELECT 1"}</function>`, []string{`run_sql {"sql":"SELECT 1"}`}, "", FormatLlama, false},
		{"llama function tag unclosed, eom", "<function=describe_table>{\"table\": \"orders\"}<|eom_id|>", []string{`describe_table {"table":"orders"}`}, "", FormatLlama, false},
		{"llama function tag broken JSON bounces", `<function=run_sql>{"sql": "SELECT 1</function>`, nil, "", FormatLlama, true},
		{"python_tag JSON", `<|python_tag|>{"name": "run_sql", "parameters": {"sql": "SELECT 1"}}<|eom_id|>`, []string{`run_sql {"sql":"SELECT 1"}`}, "", FormatJSON, false},
		{"python_tag builtin call", `<|python_tag|>run_sql.call(sql="SELECT 1")`, []string{`run_sql {"sql":"SELECT 1"}`}, "", FormatPython, false},
		{"react JSON input", "Thought: I need the count.\nAction: run_sql\nAction Input: {\"sql\": \"SELECT 1\"}\nObservation: 40", []string{`run_sql {"sql":"SELECT 1"}`}, "Thought: I need the count.", FormatReAct, false},
		{"react bare input", "Action: run_sql\nAction Input: SELECT count(*) FROM orders", []string{`run_sql {"sql":"SELECT count(*) FROM orders"}`}, "", FormatReAct, false},
		{"react fenced input", "Action: `run_sql`\nAction Input: ```sql\nSELECT 1\n```", []string{`run_sql {"sql":"SELECT 1"}`}, "", FormatReAct, false},
		{"react final answer", "Thought: I know.\nFinal Answer: There are 40 orders.", nil, "There are 40 orders.", FormatFinal, false},
		{"react without input bounces", "Action: run_sql", nil, "", FormatReAct, true},
		{"action in prose stays text", "Next action: check the data yourself.", nil, "Next action: check the data yourself.", "", false},
		{"final_answer call", `final_answer(answer="There are 40 orders.")`, nil, "There are 40 orders.", FormatFinal, false},
		{"final_answer JSON", `{"name": "final_answer", "arguments": {"answer": "40 orders."}}`, nil, "40 orders.", FormatFinal, false},
		{"answer with example SQL stays text", "Use this query:\n```sql\nSELECT count(*) FROM orders\n```\nIt returns 40.", nil, "Use this query:\n```sql\nSELECT count(*) FROM orders\n```\nIt returns 40.", "", false},
		{"answer naming a tool stays text", "I called run_sql and describe_table; the total is 40.", nil, "I called run_sql and describe_table; the total is 40.", "", false},
		{"broken JSON call bounces", `{"name": "run_sql", "arguments": {"sql": "SELECT 1"`, nil, "", "", true},
		{"deepseek tool tokens", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>run_sql\n```json\n{\"sql\": \"SELECT 1\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", []string{`run_sql {"sql":"SELECT 1"}`}, "", FormatTagged, false},
		{"deepseek ascii bars, two calls", "<|tool▁calls▁begin|><|tool▁call▁begin|>function<|tool▁sep|>run_sql\n{\"sql\": \"SELECT 1\"}<|tool▁call▁end|>\n<|tool▁call▁begin|>function<|tool▁sep|>describe_table\n{\"table\": \"t\"}<|tool▁call▁end|><|tool▁calls▁end|>", []string{`run_sql {"sql":"SELECT 1"}`, `describe_table {"table":"t"}`}, "", FormatTagged, false},
		{"deepseek v3.1 name before the separator", "Let me look.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>describe_table<｜tool▁sep｜>{\"table\": \"t\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", []string{`describe_table {"table":"t"}`}, "Let me look.", FormatTagged, false},
		{"gpt-oss harmony", `<|channel|>commentary to=functions.run_sql <|constrain|>json<|message|>{"sql":"SELECT 1"}<|call|>`, []string{`run_sql {"sql":"SELECT 1"}`}, "", FormatTagged, false},
		{"mistral ARGS", `[TOOL_CALLS]run_sql[ARGS]{"sql": "SELECT 1"}`, []string{`run_sql {"sql":"SELECT 1"}`}, "", FormatTagged, false},
		{"functionary recipient", ">>>describe_table\n{\"table\": \"orders\"}", []string{`describe_table {"table":"orders"}`}, "", FormatTagged, false},
		{"qwen3-coder parameters", "<tool_call>\n<function=run_sql>\n<parameter=sql>\nSELECT 1\n</parameter>\n</function>\n</tool_call>", []string{`run_sql {"sql":"SELECT 1"}`}, "", FormatLlama, false},
		{"invoke with parameters", "Let me count.\n<invoke name=\"run_sql\">\n<parameter name=\"sql\">SELECT 1</parameter>\n</invoke>", []string{`run_sql {"sql":"SELECT 1"}`}, "Let me count.", FormatTagged, false},
		{"function_call key", `{"function_call": {"name": "run_sql", "arguments": "{\"sql\": \"SELECT 1\"}"}}`, []string{`run_sql {"sql":"SELECT 1"}`}, "", FormatJSON, false},
		{"react MRKL brackets", "Action: run_sql[SELECT 1]", []string{`run_sql {"sql":"SELECT 1"}`}, "", FormatReAct, false},
		{"command-r directly_answer", "Action: ```json\n[{\"tool_name\": \"directly_answer\", \"parameters\": {\"answer\": \"40 orders\"}}]\n```", nil, "40 orders", FormatFinal, false},
		{"python in tool_call tags", `<tool_call>run_sql(sql="SELECT 1")</tool_call>`, []string{`run_sql {"sql":"SELECT 1"}`}, "", FormatPython, false},
		{"gemma default_api", "```tool_code\nprint(default_api.run_sql(sql=\"SELECT 1\"))\n```", []string{`default_api.run_sql {"sql":"SELECT 1"}`}, "", FormatPython, false},
		{"langchain action_input string", `{"action": "run_sql", "action_input": "SELECT 1"}`, []string{`run_sql {"sql":"SELECT 1"}`}, "", FormatJSON, false},
		{"xml tool tag with child tags", "<run_sql>\n<sql>SELECT 1</sql>\n</run_sql>", []string{`run_sql {"sql":"SELECT 1"}`}, "", FormatXML, false},
		{"xml name and arguments tags", "<tool_call><name>describe_table</name><arguments>{\"table\": \"orders\"}</arguments></tool_call>", []string{`describe_table {"table":"orders"}`}, "", FormatXML, false},
		{"xml in prose is not a call", "The <sql> tag is not a call, and <b>40</b> is bold.", nil, "The <sql> tag is not a call, and <b>40</b> is bold.", "", false},
		{"python adjacent strings join", "run_sql(sql=\"SELECT count(*) \"\n  \"FROM orders\")", []string{`run_sql {"sql":"SELECT count(*) FROM orders"}`}, "", FormatPython, false},
		{"json still works", "```json\n{\"name\": \"run_sql\", \"arguments\": {\"sql\": \"SELECT 1\"}}\n```", []string{`run_sql {"sql":"SELECT 1"}`}, "", FormatJSON, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := Parse(c.content, testTools())
			if (p.Bounce != "") != c.bounce {
				t.Fatalf("bounce = %q, want bounce %v (calls %v)", p.Bounce, c.bounce, p.Calls)
			}
			if c.bounce {
				return
			}
			var got []string
			for _, f := range p.Calls {
				var v any
				if err := json.Unmarshal(f.Args, &v); err != nil {
					t.Fatalf("args %s: %v", f.Args, err)
				}
				b, _ := json.Marshal(v)
				got = append(got, f.Name+" "+string(b))
			}
			if strings.Join(got, "|") != strings.Join(c.calls, "|") {
				t.Fatalf("calls = %v, want %v", got, c.calls)
			}
			if p.Rest != c.rest || p.Format != c.format {
				t.Errorf("rest, format = %q, %q; want %q, %q", p.Rest, p.Format, c.rest, c.format)
			}
		})
	}
}

func TestUnfence(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"sql": "` + "```sql\\nSELECT 1\\n```" + `"}`, `{"sql":"SELECT 1"}`},
		{`{"sql": "` + "```\\nSELECT 1\\n```" + `"}`, `{"sql":"SELECT 1"}`},
		{`{"sql": "` + "```SELECT 1```" + `"}`, `{"sql":"SELECT 1"}`},
		{`{"sql": "` + "```sql SELECT 1```" + `"}`, `{"sql":"SELECT 1"}`},
		{`{"sql": "` + "```\\nSELECT\\n* FROM t\\n```" + `"}`, `{"sql":"SELECT\n* FROM t"}`},
		{`{"table": "` + "`orders`" + `"}`, `{"table":"orders"}`},
		{`{"sql": "SELECT ` + "`a`" + ` FROM ` + "`t`" + `"}`, `{"sql":"SELECT ` + "`a`" + ` FROM ` + "`t`" + `"}`},
		{`{"sql": "SELECT 1"}`, `{"sql":"SELECT 1"}`},
	}
	for _, c := range cases {
		got, _ := Unfence(json.RawMessage(c.in))
		if !sameJSON(t, got, c.want) {
			t.Errorf("Unfence(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}
