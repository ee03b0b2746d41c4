package agenttest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
	"github.com/loupeapp/loupe/agent/llm/provider"
)

// The fault suite replays what small local models really do — tool calls
// written as text, broken JSON, near-miss names, reasoning in the content,
// no tool support, repeated failing calls, server faults — through the
// real provider adapters on both wires. Each fault's scripted model
// answers right only if the loop got it the real result it needed
// (the script checks the last message it was shown), so a pass means the
// loop recovered, not merely that it ended. The faults are defined here
// once; agent/ replays them over the stub tools (Shop), app/assemble over
// the real tools and DuckDB with the same fixtures.

// Question is what every fault asks.
const Question = "How many orders are there?"

// CountSQL counts the orders; Right is the right answer to Question.
const (
	CountSQL = "SELECT count(*) AS n FROM orders"
	Right    = "There are 40 orders."
)

// Fault is one misbehaviour of a model and what the loop must reach despite it.
type Fault struct {
	Name  string
	Turns []fake.Turn // the model's turns before its answer
	// Need is what the last message the model sees must contain for it to
	// answer right (default "40", the real count).
	Need     string
	Models   []fake.Model
	Context  int          // the model's context window, tokens (0: the provider's)
	Status   agent.Status // default Done with the right answer
	MaxSteps int
	// Answer is how the model words its right answer (default Right); it
	// must reach the user holding Right, and keep KeepText.
	Answer, KeepText string
}

// SQLCall is a native call of run_sql with args as written.
func SQLCall(args string) fake.Call { return fake.Call{Name: "run_sql", Args: args} }

func text(s string) fake.Turn { return fake.Text(s) }

// Faults are the suite: at least 40, each replayed on both wires.
var Faults = []Fault{
	{Name: "native call", Turns: []fake.Turn{fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`))}},
	{Name: "arguments as a JSON string", Turns: []fake.Turn{fake.Calls(SQLCall(`"{\"sql\": \"` + CountSQL + `\"}"`))}},
	{Name: "trailing comma", Turns: []fake.Turn{fake.Calls(SQLCall(`{"sql": "` + CountSQL + `",}`))}},
	{Name: "single quotes", Turns: []fake.Turn{fake.Calls(SQLCall(`{'sql': '` + CountSQL + `'}`))}},
	{Name: "unquoted keys", Turns: []fake.Turn{fake.Calls(SQLCall(`{sql: "` + CountSQL + `"}`))}},
	{Name: "python literals", Turns: []fake.Turn{fake.Calls(SQLCall(`{"sql": "` + CountSQL + `", "purpose": None}`))}},
	{Name: "unrepairable JSON bounced, then fixed", Need: "40", Turns: []fake.Turn{
		fake.Calls(SQLCall(`{"sql": "SELECT count(*) FROM orders`)),
		fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`)),
	}},
	{Name: "bare JSON in the content", Turns: []fake.Turn{text(`{"name": "run_sql", "arguments": {"sql": "` + CountSQL + `"}}`)}},
	{Name: "fenced JSON with prose", Turns: []fake.Turn{text("I'll count them.\n```json\n{\"name\": \"run_sql\", \"arguments\": {\"sql\": \"" + CountSQL + "\"}}\n```")}},
	{Name: "two calls in one message", Need: "40", Turns: []fake.Turn{text("{\"name\": \"describe_table\", \"arguments\": {\"table\": \"orders\"}}\n{\"name\": \"run_sql\", \"arguments\": {\"sql\": \"" + CountSQL + "\"}}")}},
	{Name: "array of calls", Turns: []fake.Turn{text(`[{"name": "list_datasets", "arguments": {}}, {"name": "run_sql", "arguments": {"sql": "` + CountSQL + `"}}]`)}},
	{Name: "tool_call tags", Turns: []fake.Turn{text("<tool_call>\n{\"name\": \"run_sql\", \"arguments\": {\"sql\": \"" + CountSQL + "\"}}\n</tool_call>")}},
	{Name: "OpenAI shape in the content", Turns: []fake.Turn{text(`{"type": "function", "function": {"name": "run_sql", "arguments": "{\"sql\": \"` + CountSQL + `\"}"}}`)}},
	{Name: "tool name as the key", Turns: []fake.Turn{text(`{"run_sql": {"sql": "` + CountSQL + `"}}`)}},
	{Name: "alias tool name sql", Turns: []fake.Turn{fake.Calls(fake.Call{Name: "sql", Args: `{"sql":"` + CountSQL + `"}`})}},
	{Name: "alias execute_sql", Turns: []fake.Turn{fake.Calls(fake.Call{Name: "execute_sql", Args: `{"query":"` + CountSQL + `"}`})}},
	{Name: "camel case RunSQL", Turns: []fake.Turn{fake.Calls(fake.Call{Name: "RunSQL", Args: `{"sql":"` + CountSQL + `"}`})}},
	{Name: "typo run_sqll", Turns: []fake.Turn{fake.Calls(fake.Call{Name: "run_sqll", Args: `{"sql":"` + CountSQL + `"}`})}},
	{Name: "namespaced functions.run_sql", Turns: []fake.Turn{fake.Calls(fake.Call{Name: "functions.run_sql", Args: `{"sql":"` + CountSQL + `"}`})}},
	{Name: "invented tool, then a real one", Turns: []fake.Turn{
		fake.Calls(fake.Call{Name: "fetch_url", Args: `{"url":"http://example.com"}`}),
		fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`)),
	}},
	{Name: "argument alias query", Turns: []fake.Turn{fake.Calls(SQLCall(`{"query":"` + CountSQL + `"}`))}},
	{Name: "argument alias table_name", Need: "order_id", Turns: []fake.Turn{fake.Calls(fake.Call{Name: "describe_table", Args: `{"table_name":"orders"}`})}},
	{Name: "unknown argument named, then fixed", Turns: []fake.Turn{
		fake.Calls(SQLCall(`{"sql":"` + CountSQL + `","reason":"count","limit":5}`)),
		fake.Calls(SQLCall(`{"sql":"` + CountSQL + `","reason":"count"}`)),
	}},
	{Name: "missing argument, then fixed", Turns: []fake.Turn{
		fake.Calls(SQLCall(`{}`)),
		fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`)),
	}},
	{Name: "think block before a call", Turns: []fake.Turn{text("<think>I should count the rows.</think>\n{\"name\": \"run_sql\", \"arguments\": {\"sql\": \"" + CountSQL + "\"}}")}},
	{Name: "reasoning field and a call", Turns: []fake.Turn{{Thinking: "Count the orders table.", ToolCalls: []fake.Call{SQLCall(`{"sql":"` + CountSQL + `"}`)}}}},
	{Name: "think split across chunks", Turns: []fake.Turn{{Content: "<think>plan: count</think>{\"name\": \"run_sql\", \"arguments\": {\"sql\": \"" + CountSQL + "\"}}", Chunks: 9}}},
	{Name: "model without tool support", Models: []fake.Model{fake.WithoutTools("gemma:2b")}, Turns: []fake.Turn{text(`{"name": "run_sql", "arguments": {"sql": "` + CountSQL + `"}}`)}},
	{Name: "model without tools, fenced call", Models: []fake.Model{fake.WithoutTools("gemma:2b")}, Turns: []fake.Turn{text("```json\n{\"name\": \"run_sql\", \"arguments\": {\"sql\": \"" + CountSQL + "\"}}\n```")}},
	{Name: "same failing call twice, then different", Need: "40", Turns: []fake.Turn{
		fake.Calls(SQLCall(`{"sql":"SELECT count(*) FROM order"}`)),
		fake.Calls(SQLCall(`{"sql":"SELECT  count(*)  FROM order"}`)),
		fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`)),
	}},
	{Name: "SQL error then fix", Turns: []fake.Turn{
		fake.Calls(SQLCall(`{"sql":"SELECT count(*) AS n FROM ordrs"}`)),
		fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`)),
	}},
	{Name: "unknown table in describe, then fixed", Need: "order_id", Turns: []fake.Turn{
		fake.Calls(fake.Call{Name: "describe_table", Args: `{"table":"order"}`}),
		fake.Calls(fake.Call{Name: "describe_table", Args: `{"table":"orders"}`}),
	}},
	{Name: "several native calls at once", Turns: []fake.Turn{fake.Calls(
		fake.Call{Name: "describe_table", Args: `{"table":"orders"}`},
		SQLCall(`{"sql":"`+CountSQL+`"}`),
	)}},
	{Name: "empty reply, then a call", Turns: []fake.Turn{text(""), fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`))}},
	{Name: "server 500 once", Turns: []fake.Turn{fake.Failing(fake.Status(500, "boom")), fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`))}},
	{Name: "rate limited with Retry-After", Turns: []fake.Turn{fake.Failing(fake.RateLimit(200 * time.Millisecond)), fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`))}},
	{Name: "stream cut mid-answer", Turns: []fake.Turn{fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`)), {Content: "There are", Chunks: 4, Fail: fake.CutAfter(1)}}},
	{Name: "stream cut mid-call", Turns: []fake.Turn{{ToolCalls: []fake.Call{SQLCall(`{"sql":"` + CountSQL + `"}`)}, Chunks: 6, Fail: fake.CutAfter(2)}, fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`))}},
	{Name: "connection dropped", Turns: []fake.Turn{fake.Failing(fake.Drop()), fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`))}},
	{Name: "error inside the stream", Turns: []fake.Turn{{Content: "thinking aloud", Chunks: 3, Fail: fake.StreamError(1, "model crashed")}, fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`))}},
	{Name: "a result too large for a small context", Need: "40", Context: 3000, Turns: []fake.Turn{
		fake.Calls(SQLCall(`{"sql":"SELECT * FROM orders, customers"}`)),
		fake.Calls(SQLCall(`{"sql":"SELECT *, repeat('x', 200) AS pad FROM orders"}`)),
		fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`)),
	}},
	{Name: "JSON data in the answer stays an answer", Need: "40", Turns: []fake.Turn{fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`))}},
	// Round two: the other families of text calls (issue 23).
	{Name: "python-style call", Turns: []fake.Turn{text(`run_sql(sql="` + CountSQL + `")`)}},
	{Name: "python-style call in a tool_code fence", Turns: []fake.Turn{text("```tool_code\nprint(run_sql(sql='" + CountSQL + "'))\n```")}},
	{Name: "python-style list with a positional argument", Turns: []fake.Turn{text(`[describe_table("orders"), run_sql(sql="` + CountSQL + `")]`)}},
	{Name: "python-style call that cannot be read bounced, then fixed", Turns: []fake.Turn{
		text(`run_sql("` + CountSQL + `", "orders")`),
		text(`run_sql(sql="` + CountSQL + `")`),
	}},
	{Name: "llama function tag", Turns: []fake.Turn{text(`<function=run_sql>{"sql": "` + CountSQL + `"}</function>`)}},
	{Name: "llama python_tag built-in call", Turns: []fake.Turn{text(`<|python_tag|>run_sql.call(sql="` + CountSQL + `")<|eom_id|>`)}},
	{Name: "llama python_tag JSON with parameters", Turns: []fake.Turn{text(`<|python_tag|>{"type": "function", "name": "run_sql", "parameters": {"sql": "` + CountSQL + `"}}<|eot_id|>`)}},
	{Name: "ReAct action and input", Turns: []fake.Turn{text("Thought: I need to count the orders.\nAction: run_sql\nAction Input: {\"sql\": \"" + CountSQL + "\"}\nObservation: the count is 12")}},
	{Name: "ReAct bare input and a final answer", Answer: "Thought: I have the count.\nFinal Answer: " + Right, Turns: []fake.Turn{text("Action: run_sql\nAction Input: " + CountSQL)}},
	{Name: "unclosed think swallows the call", Turns: []fake.Turn{text("<think>I should count the rows.\n{\"name\": \"run_sql\", \"arguments\": {\"sql\": \"" + CountSQL + "\"}}")}},
	{Name: "SQL fenced inside the argument", Turns: []fake.Turn{fake.Calls(SQLCall(`{"sql":"` + "```sql\\n" + CountSQL + "\\n```" + `"}`))}},
	{Name: "SQL fenced inside a text call", Models: []fake.Model{fake.WithoutTools("gemma:2b")}, Turns: []fake.Turn{text(`run_sql(sql="""` + "```sql\n" + CountSQL + "\n```" + `""")`)}},
	{Name: "final_answer call is the answer", Answer: `final_answer(answer="` + Right + `")`, Turns: []fake.Turn{fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`))}},
	{Name: "answer showing SQL and a tool name stays an answer", KeepText: "```sql\n" + CountSQL + "\n```", Answer: Right + " I counted them with run_sql:\n```sql\n" + CountSQL + "\n```",
		Turns: []fake.Turn{fake.Calls(SQLCall(`{"sql":"` + CountSQL + `"}`))}},
	{Name: "DeepSeek tool tokens", Turns: []fake.Turn{text("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>run_sql\n```json\n{\"sql\": \"" + CountSQL + "\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>")}},
	{Name: "Qwen3-Coder parameter tags", Turns: []fake.Turn{text("<tool_call>\n<function=run_sql>\n<parameter=sql>\n" + CountSQL + "\n</parameter>\n</function>\n</tool_call>")}},
	{Name: "Mistral [TOOL_CALLS]name[ARGS]", Turns: []fake.Turn{text(`[TOOL_CALLS]run_sql[ARGS]{"sql": "` + CountSQL + `"}`)}},
	{Name: "endless calls hit the step limit", Status: agent.Limit, MaxSteps: 4, Turns: []fake.Turn{
		fake.Calls(SQLCall(`{"sql":"SELECT 1"}`)), fake.Calls(SQLCall(`{"sql":"SELECT 2"}`)), fake.Calls(SQLCall(`{"sql":"SELECT 3"}`)),
		fake.Calls(SQLCall(`{"sql":"SELECT 4"}`)), fake.Calls(SQLCall(`{"sql":"SELECT 5"}`)),
	}},
	{Name: "calls written as text at the last step", Status: agent.Limit, MaxSteps: 2, Turns: []fake.Turn{
		fake.Calls(SQLCall(`{"sql":"SELECT 1"}`)), text(`{"name": "run_sql", "arguments": {"sql": "SELECT 2"}}`),
	}},
}

// Start starts the scripted model server of f for t and returns the
// provider configuration that reaches it on wire (fast retries).
func (f Fault) Start(t *testing.T, wire string) provider.Config {
	t.Helper()
	need := f.Need
	if need == "" {
		need = "40"
	}
	answer := Right
	if f.Answer != "" {
		answer = f.Answer
	}
	if f.Name == "JSON data in the answer stays an answer" {
		answer = Right + ` As JSON: {"orders": 40}`
	}
	turns := f.Turns
	if len(f.Models) > 0 && !f.Models[0].Tools && wire == provider.OpenAI {
		// OpenAI-compatible servers do not say which models take tools:
		// the first request offers them and is refused before the script
		// is consulted, but it still counts as a request. (Ollama's
		// /api/show says so, and the run starts in the text protocol.)
		turns = append([]fake.Turn{text("refused")}, turns...)
	}
	srv := fake.Start(t, fake.Options{Models: f.Models, Respond: func(r fake.Request) fake.Turn {
		if r.N < len(turns) {
			return turns[r.N]
		}
		if strings.Contains(r.Last().Content, need) {
			return text(answer)
		}
		return text("WRONG: I never saw the data.")
	}})
	model := "qwen3:8b"
	if len(f.Models) > 0 {
		model = f.Models[0].Name
	}
	url := srv.OllamaURL()
	if wire == provider.OpenAI {
		url = srv.OpenAIURL()
	}
	return provider.Config{Provider: wire, Model: model, BaseURL: url, APIKey: "sk-test",
		Retry: llm.RetryPolicy{Retries: 2, Base: 5 * time.Millisecond, Max: 20 * time.Millisecond, MaxRetryAfter: time.Second}}
}

// Check says whether out is what the loop must reach despite f: within
// the step limit, with the status wanted, and when done the right answer
// without reasoning, wrappers or the script's WRONG, keeping the text it
// must keep.
func (f Fault) Check(out *agent.Outcome) error {
	max := f.MaxSteps
	if max == 0 {
		max = agent.DefaultMaxSteps
	}
	if out.Meta.Steps > max {
		return fmt.Errorf("%d steps with a limit of %d", out.Meta.Steps, max)
	}
	want := f.Status
	if want == "" {
		want = agent.Done
	}
	if out.Status != want {
		return fmt.Errorf("status %s (%s), want %s", out.Status, out.Reason, want)
	}
	if want != agent.Done {
		return nil
	}
	if !strings.Contains(out.Answer, Right) || strings.Contains(out.Answer, "<think>") || strings.Contains(out.Answer, "WRONG") {
		return fmt.Errorf("answer %q", out.Answer)
	}
	if strings.Contains(out.Answer, "final_answer") || strings.Contains(out.Answer, "Final Answer:") {
		return fmt.Errorf("the final-answer wrapper reached the user: %q", out.Answer)
	}
	if f.KeepText != "" && !strings.Contains(out.Answer, f.KeepText) {
		return fmt.Errorf("the answer lost %q: %q", f.KeepText, out.Answer)
	}
	if f.Name == "JSON data in the answer stays an answer" && !strings.Contains(out.Answer, `{"orders": 40}`) {
		return fmt.Errorf("the JSON in the answer was taken for a call: %q", out.Answer)
	}
	return nil
}

// RunFaults replays every fault on both wires, each with run (which
// builds an agent on the configuration given, with its tools, and runs
// Question), prints the pass rate and what was missed, and fails t below
// 90%.
func RunFaults(t *testing.T, run func(t *testing.T, f Fault, cfg provider.Config) *agent.Outcome) {
	if len(Faults) < 40 {
		t.Fatalf("the suite has %d faults; it must replay at least 40", len(Faults))
	}
	passed, total := 0, 0
	var failed []string
	for _, wire := range []string{provider.Ollama, provider.OpenAI} {
		for _, f := range Faults {
			total++
			t.Run(wire+"/"+f.Name, func(t *testing.T) {
				out := run(t, f, f.Start(t, wire))
				if err := f.Check(out); err != nil {
					failed = append(failed, wire+"/"+f.Name+": "+err.Error())
					t.Logf("missed: %v", err)
					b, _ := json.MarshalIndent(out.Transcript, "", " ")
					t.Logf("transcript: %s", b)
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
