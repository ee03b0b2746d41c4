package assemble_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/tools/tooltest"
)

// The fault suite replays what small local models really do — tool calls
// written as text, broken JSON, near-miss names, reasoning in the content,
// no tool support, repeated failing calls, server faults — through the
// real provider adapters on both wires. Each fault's scripted model
// answers right only if the loop got it the real result it needed
// (respond checks the last message it was shown), so a pass means the
// loop recovered, not merely that it ended.

const (
	countSQL = "SELECT count(*) AS n FROM orders"
	right    = "There are 40 orders."
)

type fault struct {
	name  string
	turns []fake.Turn // the model's turns before its answer
	// need is what the last message the model sees must contain for it to
	// answer right (default "40", the real count).
	need     string
	models   []fake.Model
	opts     assemble.Options
	status   agent.Status // default Done with the right answer
	maxSteps int
	// answer is how the model words its right answer (default right); it
	// must reach the user holding right, and keep keepText.
	answer, keepText string
}

func sqlCall(args string) fake.Call { return fake.Call{Name: "run_sql", Args: args} }

func text(s string) fake.Turn { return fake.Text(s) }

var faults = []fault{
	{name: "native call", turns: []fake.Turn{fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`))}},
	{name: "arguments as a JSON string", turns: []fake.Turn{fake.Calls(sqlCall(`"{\"sql\": \"` + countSQL + `\"}"`))}},
	{name: "trailing comma", turns: []fake.Turn{fake.Calls(sqlCall(`{"sql": "` + countSQL + `",}`))}},
	{name: "single quotes", turns: []fake.Turn{fake.Calls(sqlCall(`{'sql': '` + countSQL + `'}`))}},
	{name: "unquoted keys", turns: []fake.Turn{fake.Calls(sqlCall(`{sql: "` + countSQL + `"}`))}},
	{name: "python literals", turns: []fake.Turn{fake.Calls(sqlCall(`{"sql": "` + countSQL + `", "purpose": None}`))}},
	{name: "unrepairable JSON bounced, then fixed", need: "40", turns: []fake.Turn{
		fake.Calls(sqlCall(`{"sql": "SELECT count(*) FROM orders`)),
		fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`)),
	}},
	{name: "bare JSON in the content", turns: []fake.Turn{text(`{"name": "run_sql", "arguments": {"sql": "` + countSQL + `"}}`)}},
	{name: "fenced JSON with prose", turns: []fake.Turn{text("I'll count them.\n```json\n{\"name\": \"run_sql\", \"arguments\": {\"sql\": \"" + countSQL + "\"}}\n```")}},
	{name: "two calls in one message", need: "40", turns: []fake.Turn{text("{\"name\": \"describe_table\", \"arguments\": {\"table\": \"orders\"}}\n{\"name\": \"run_sql\", \"arguments\": {\"sql\": \"" + countSQL + "\"}}")}},
	{name: "array of calls", turns: []fake.Turn{text(`[{"name": "list_datasets", "arguments": {}}, {"name": "run_sql", "arguments": {"sql": "` + countSQL + `"}}]`)}},
	{name: "tool_call tags", turns: []fake.Turn{text("<tool_call>\n{\"name\": \"run_sql\", \"arguments\": {\"sql\": \"" + countSQL + "\"}}\n</tool_call>")}},
	{name: "OpenAI shape in the content", turns: []fake.Turn{text(`{"type": "function", "function": {"name": "run_sql", "arguments": "{\"sql\": \"` + countSQL + `\"}"}}`)}},
	{name: "tool name as the key", turns: []fake.Turn{text(`{"run_sql": {"sql": "` + countSQL + `"}}`)}},
	{name: "alias tool name sql", turns: []fake.Turn{fake.Calls(fake.Call{Name: "sql", Args: `{"sql":"` + countSQL + `"}`})}},
	{name: "alias execute_sql", turns: []fake.Turn{fake.Calls(fake.Call{Name: "execute_sql", Args: `{"query":"` + countSQL + `"}`})}},
	{name: "camel case RunSQL", turns: []fake.Turn{fake.Calls(fake.Call{Name: "RunSQL", Args: `{"sql":"` + countSQL + `"}`})}},
	{name: "typo run_sqll", turns: []fake.Turn{fake.Calls(fake.Call{Name: "run_sqll", Args: `{"sql":"` + countSQL + `"}`})}},
	{name: "namespaced functions.run_sql", turns: []fake.Turn{fake.Calls(fake.Call{Name: "functions.run_sql", Args: `{"sql":"` + countSQL + `"}`})}},
	{name: "invented tool, then a real one", turns: []fake.Turn{
		fake.Calls(fake.Call{Name: "fetch_url", Args: `{"url":"http://example.com"}`}),
		fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`)),
	}},
	{name: "argument alias query", turns: []fake.Turn{fake.Calls(sqlCall(`{"query":"` + countSQL + `"}`))}},
	{name: "argument alias table_name", need: "order_id", turns: []fake.Turn{fake.Calls(fake.Call{Name: "describe_table", Args: `{"table_name":"orders"}`})}},
	{name: "unknown argument named, then fixed", turns: []fake.Turn{
		fake.Calls(sqlCall(`{"sql":"` + countSQL + `","reason":"count","limit":5}`)),
		fake.Calls(sqlCall(`{"sql":"` + countSQL + `","reason":"count"}`)),
	}},
	{name: "missing argument, then fixed", turns: []fake.Turn{
		fake.Calls(sqlCall(`{}`)),
		fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`)),
	}},
	{name: "think block before a call", turns: []fake.Turn{text("<think>I should count the rows.</think>\n{\"name\": \"run_sql\", \"arguments\": {\"sql\": \"" + countSQL + "\"}}")}},
	{name: "reasoning field and a call", turns: []fake.Turn{{Thinking: "Count the orders table.", ToolCalls: []fake.Call{sqlCall(`{"sql":"` + countSQL + `"}`)}}}},
	{name: "think split across chunks", turns: []fake.Turn{{Content: "<think>plan: count</think>{\"name\": \"run_sql\", \"arguments\": {\"sql\": \"" + countSQL + "\"}}", Chunks: 9}}},
	{name: "model without tool support", models: []fake.Model{fake.WithoutTools("gemma:2b")}, turns: []fake.Turn{text(`{"name": "run_sql", "arguments": {"sql": "` + countSQL + `"}}`)}},
	{name: "model without tools, fenced call", models: []fake.Model{fake.WithoutTools("gemma:2b")}, turns: []fake.Turn{text("```json\n{\"name\": \"run_sql\", \"arguments\": {\"sql\": \"" + countSQL + "\"}}\n```")}},
	{name: "same failing call twice, then different", need: "40", turns: []fake.Turn{
		fake.Calls(sqlCall(`{"sql":"SELECT count(*) FROM order"}`)),
		fake.Calls(sqlCall(`{"sql":"SELECT  count(*)  FROM order"}`)),
		fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`)),
	}},
	{name: "SQL error then fix", turns: []fake.Turn{
		fake.Calls(sqlCall(`{"sql":"SELECT count(*) AS n FROM ordrs"}`)),
		fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`)),
	}},
	{name: "unknown table in describe, then fixed", need: "order_id", turns: []fake.Turn{
		fake.Calls(fake.Call{Name: "describe_table", Args: `{"table":"order"}`}),
		fake.Calls(fake.Call{Name: "describe_table", Args: `{"table":"orders"}`}),
	}},
	{name: "several native calls at once", turns: []fake.Turn{fake.Calls(
		fake.Call{Name: "describe_table", Args: `{"table":"orders"}`},
		sqlCall(`{"sql":"`+countSQL+`"}`),
	)}},
	{name: "empty reply, then a call", turns: []fake.Turn{text(""), fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`))}},
	{name: "server 500 once", turns: []fake.Turn{fake.Failing(fake.Status(500, "boom")), fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`))}},
	{name: "rate limited with Retry-After", turns: []fake.Turn{fake.Failing(fake.RateLimit(200 * time.Millisecond)), fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`))}},
	{name: "stream cut mid-answer", turns: []fake.Turn{fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`)), {Content: "There are", Chunks: 4, Fail: fake.CutAfter(1)}}},
	{name: "stream cut mid-call", turns: []fake.Turn{{ToolCalls: []fake.Call{sqlCall(`{"sql":"` + countSQL + `"}`)}, Chunks: 6, Fail: fake.CutAfter(2)}, fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`))}},
	{name: "connection dropped", turns: []fake.Turn{fake.Failing(fake.Drop()), fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`))}},
	{name: "error inside the stream", turns: []fake.Turn{{Content: "thinking aloud", Chunks: 3, Fail: fake.StreamError(1, "model crashed")}, fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`))}},
	{name: "a result too large for a small context", need: "40", opts: assemble.Options{ContextTokens: 3000}, turns: []fake.Turn{
		fake.Calls(sqlCall(`{"sql":"SELECT * FROM orders, customers"}`)),
		fake.Calls(sqlCall(`{"sql":"SELECT *, repeat('x', 200) AS pad FROM orders"}`)),
		fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`)),
	}},
	{name: "JSON data in the answer stays an answer", need: "40", turns: []fake.Turn{fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`))}},
	// Round two: the other families of text calls (issue 23).
	{name: "python-style call", turns: []fake.Turn{text(`run_sql(sql="` + countSQL + `")`)}},
	{name: "python-style call in a tool_code fence", turns: []fake.Turn{text("```tool_code\nprint(run_sql(sql='" + countSQL + "'))\n```")}},
	{name: "python-style list with a positional argument", turns: []fake.Turn{text(`[describe_table("orders"), run_sql(sql="` + countSQL + `")]`)}},
	{name: "python-style call that cannot be read bounced, then fixed", turns: []fake.Turn{
		text(`run_sql("` + countSQL + `", "orders")`),
		text(`run_sql(sql="` + countSQL + `")`),
	}},
	{name: "llama function tag", turns: []fake.Turn{text(`<function=run_sql>{"sql": "` + countSQL + `"}</function>`)}},
	{name: "llama python_tag built-in call", turns: []fake.Turn{text(`<|python_tag|>run_sql.call(sql="` + countSQL + `")<|eom_id|>`)}},
	{name: "llama python_tag JSON with parameters", turns: []fake.Turn{text(`<|python_tag|>{"type": "function", "name": "run_sql", "parameters": {"sql": "` + countSQL + `"}}<|eot_id|>`)}},
	{name: "ReAct action and input", turns: []fake.Turn{text("Thought: I need to count the orders.\nAction: run_sql\nAction Input: {\"sql\": \"" + countSQL + "\"}\nObservation: the count is 12")}},
	{name: "ReAct bare input and a final answer", answer: "Thought: I have the count.\nFinal Answer: " + right, turns: []fake.Turn{text("Action: run_sql\nAction Input: " + countSQL)}},
	{name: "unclosed think swallows the call", turns: []fake.Turn{text("<think>I should count the rows.\n{\"name\": \"run_sql\", \"arguments\": {\"sql\": \"" + countSQL + "\"}}")}},
	{name: "SQL fenced inside the argument", turns: []fake.Turn{fake.Calls(sqlCall(`{"sql":"` + "```sql\\n" + countSQL + "\\n```" + `"}`))}},
	{name: "SQL fenced inside a text call", models: []fake.Model{fake.WithoutTools("gemma:2b")}, turns: []fake.Turn{text(`run_sql(sql="""` + "```sql\n" + countSQL + "\n```" + `""")`)}},
	{name: "final_answer call is the answer", answer: `final_answer(answer="` + right + `")`, turns: []fake.Turn{fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`))}},
	{name: "answer showing SQL and a tool name stays an answer", keepText: "```sql\n" + countSQL + "\n```", answer: right + " I counted them with run_sql:\n```sql\n" + countSQL + "\n```",
		turns: []fake.Turn{fake.Calls(sqlCall(`{"sql":"` + countSQL + `"}`))}},
	{name: "DeepSeek tool tokens", turns: []fake.Turn{text("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>run_sql\n```json\n{\"sql\": \"" + countSQL + "\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>")}},
	{name: "Qwen3-Coder parameter tags", turns: []fake.Turn{text("<tool_call>\n<function=run_sql>\n<parameter=sql>\n" + countSQL + "\n</parameter>\n</function>\n</tool_call>")}},
	{name: "Mistral [TOOL_CALLS]name[ARGS]", turns: []fake.Turn{text(`[TOOL_CALLS]run_sql[ARGS]{"sql": "` + countSQL + `"}`)}},
	{name: "endless calls hit the step limit", status: agent.Limit, maxSteps: 4, turns: []fake.Turn{
		fake.Calls(sqlCall(`{"sql":"SELECT 1"}`)), fake.Calls(sqlCall(`{"sql":"SELECT 2"}`)), fake.Calls(sqlCall(`{"sql":"SELECT 3"}`)),
		fake.Calls(sqlCall(`{"sql":"SELECT 4"}`)), fake.Calls(sqlCall(`{"sql":"SELECT 5"}`)),
	}},
	{name: "calls written as text at the last step", status: agent.Limit, maxSteps: 2, turns: []fake.Turn{
		fake.Calls(sqlCall(`{"sql":"SELECT 1"}`)), text(`{"name": "run_sql", "arguments": {"sql": "SELECT 2"}}`),
	}},
}

// outcomeOf runs one fault on one wire and says whether the loop reached
// what it must.
func outcomeOf(t *testing.T, wire string, f fault) (*agent.Outcome, error) {
	t.Helper()
	need := f.need
	if need == "" {
		need = "40"
	}
	answer := right
	if f.answer != "" {
		answer = f.answer
	}
	if f.name == "JSON data in the answer stays an answer" {
		answer = right + ` As JSON: {"orders": 40}`
	}
	turns := f.turns
	if len(f.models) > 0 && !f.models[0].Tools && wire == provider.OpenAI {
		// OpenAI-compatible servers do not say which models take tools:
		// the first request offers them and is refused before the script
		// is consulted, but it still counts as a request. (Ollama's
		// /api/show says so, and the run starts in the text protocol.)
		turns = append([]fake.Turn{text("refused")}, turns...)
	}
	srv := fake.Start(t, fake.Options{Models: f.models, Respond: func(r fake.Request) fake.Turn {
		if r.N < len(turns) {
			return turns[r.N]
		}
		if strings.Contains(r.Last().Content, need) {
			return text(answer)
		}
		return text("WRONG: I never saw the data.")
	}})
	model := "qwen3:8b"
	if len(f.models) > 0 {
		model = f.models[0].Name
	}
	url := srv.OllamaURL()
	if wire == provider.OpenAI {
		url = srv.OpenAIURL()
	}
	p, err := provider.Open(provider.Config{Provider: wire, Model: model, BaseURL: url, APIKey: "sk-test",
		Retry: llm.RetryPolicy{Retries: 2, Base: 5 * time.Millisecond, Max: 20 * time.Millisecond, MaxRetryAfter: time.Second}})
	if err != nil {
		return nil, err
	}
	ws := tooltest.Workspace(t)
	opts := f.opts
	opts.MaxSteps = f.maxSteps
	a, err := assemble.Agent(ws, results.New(results.Config{}), p, model, opts)
	if err != nil {
		return nil, err
	}
	sch, err := assemble.WorkspaceSchema(context.Background(), ws)
	if err != nil {
		return nil, err
	}
	rec := &recorder{}
	out := a.Run(context.Background(), agent.Input{RunID: "fault", Question: "How many orders are there?", Schema: sch}, rec)
	sc := &scenario{ws: ws, srv: srv, rec: rec, out: out, question: "How many orders are there?"}
	sc.checkInvariants(t)
	max := f.maxSteps
	if max == 0 {
		max = agent.DefaultMaxSteps
	}
	if out.Meta.Steps > max {
		return out, fmt.Errorf("%d steps with a limit of %d", out.Meta.Steps, max)
	}
	want := f.status
	if want == "" {
		want = agent.Done
	}
	if out.Status != want {
		return out, fmt.Errorf("status %s (%s), want %s", out.Status, out.Reason, want)
	}
	if want == agent.Done {
		if !strings.Contains(out.Answer, right) || strings.Contains(out.Answer, "<think>") || strings.Contains(out.Answer, "WRONG") {
			return out, fmt.Errorf("answer %q", out.Answer)
		}
		if strings.Contains(out.Answer, "final_answer") || strings.Contains(out.Answer, "Final Answer:") {
			return out, fmt.Errorf("the final-answer wrapper reached the user: %q", out.Answer)
		}
		if f.keepText != "" && !strings.Contains(out.Answer, f.keepText) {
			return out, fmt.Errorf("the answer lost %q: %q", f.keepText, out.Answer)
		}
		if f.name == "JSON data in the answer stays an answer" && !strings.Contains(out.Answer, `{"orders": 40}`) {
			return out, fmt.Errorf("the JSON in the answer was taken for a call: %q", out.Answer)
		}
	}
	return out, nil
}

func TestFaultSuite(t *testing.T) {
	if len(faults) < 40 {
		t.Fatalf("the suite has %d faults; it must replay at least 40", len(faults))
	}
	passed, total := 0, 0
	var failed []string
	for _, wire := range wires {
		for _, f := range faults {
			total++
			t.Run(wire+"/"+f.name, func(t *testing.T) {
				out, err := outcomeOf(t, wire, f)
				if err != nil {
					failed = append(failed, wire+"/"+f.name+": "+err.Error())
					t.Logf("missed: %v", err)
					if out != nil {
						b, _ := json.MarshalIndent(out.Transcript, "", " ")
						t.Logf("transcript: %s", b)
					}
					return
				}
				passed++
			})
		}
	}
	rate := float64(passed) / float64(total)
	fmt.Printf("fault suite: %d of %d scenarios reached the right answer (%.1f%%)\n", passed, total, rate*100)
	for _, f := range failed {
		fmt.Printf("  missed %s\n", f)
	}
	if rate < 0.9 {
		t.Errorf("pass rate %.1f%% is below 90%%", rate*100)
	}
}
