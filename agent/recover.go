package agent

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/loupeapp/loupe/agent/calls"
	"github.com/loupeapp/loupe/agent/llm"
)

// recoverCalls is the phase between think and act for models that do not
// use native tool calling well: tool calls written as text in the content
// become real calls, and reasoning a model left in the content (an orphan
// "</think>") moves out of it. It returns the message to record.
func (r *run) recoverCalls(msg llm.Message) llm.Message {
	msg.Content, msg.Thinking = splitOrphanThink(msg.Content, msg.Thinking)
	if len(msg.ToolCalls) > 0 {
		return msg
	}
	isTool := func(name string) bool {
		_, ok := calls.Match(name, r.toolNames)
		return ok
	}
	found, rest := calls.Extract(msg.Content, isTool)
	if len(found) == 0 {
		if name, ok := calls.Attempted(msg.Content, isTool); ok {
			r.bounce = fmt.Sprintf("Your reply looks like a call to %s, but it is not valid JSON, so nothing was run. Send the call again as one valid JSON object, for example %s.", name, example(name))
		}
		return msg
	}
	for i, f := range found {
		msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{
			ID: fmt.Sprintf("text_%d_%d", r.step, i+1), Name: f.Name, Arguments: f.Args,
		})
	}
	msg.Content = rest
	r.meta.TextCalls += len(found)
	return msg
}

// splitOrphanThink moves text before a "</think>" that has no opening tag
// (chat templates that put "<think>" in the prompt produce it) out of the
// answer into thinking.
func splitOrphanThink(content, thinking string) (string, string) {
	i := strings.Index(content, "</think>")
	if i < 0 || strings.Contains(content[:i], "<think>") {
		return content, thinking
	}
	t := strings.TrimSpace(content[:i])
	if thinking != "" && t != "" {
		t = thinking + "\n" + t
	} else if t == "" {
		t = thinking
	}
	return strings.TrimSpace(content[i+len("</think>"):]), t
}

// resolve finds the tool a call means and arguments that parse. note, when
// set, tells the model what Loupe corrected; failure, when set, is the
// corrective message for a call that cannot be run.
func (r *run) resolve(call llm.ToolCall) (name string, args json.RawMessage, note, failure string) {
	name, ok := calls.Match(call.Name, r.toolNames)
	if !ok {
		return call.Name, nil, "", fmt.Sprintf("There is no tool called %q. Use one of: %s.", call.Name, strings.Join(r.toolNames, ", "))
	}
	if name != call.Name {
		note = fmt.Sprintf("(There is no tool %q; Loupe ran %s. Use that name.)", call.Name, name)
	}
	args = call.Arguments
	if len(strings.TrimSpace(string(args))) == 0 {
		return name, json.RawMessage("{}"), note, ""
	}
	fixed, ok := calls.Repair(string(args))
	if !ok {
		var probe any
		err := json.Unmarshal(args, &probe)
		return name, nil, note, fmt.Sprintf("The arguments of %s are not valid JSON (%v). Send a JSON object, for example %s.", name, err, example(name))
	}
	return name, fixed, note, ""
}

// example shows a call's argument object for the common tools.
func example(tool string) string {
	switch tool {
	case "run_sql":
		return `{"sql": "SELECT region, count(*) FROM orders GROUP BY region"}`
	case "describe_table", "profile_data", "sample_rows":
		return `{"table": "orders"}`
	case "ask_user":
		return `{"question": "Which year?", "options": ["2023", "2024"]}`
	}
	return `{"name": "value"}`
}

// callKey identifies a call by tool and arguments (key order ignored), to
// catch a model repeating a failing call.
func callKey(name string, args json.RawMessage) string {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return name + " " + string(args)
	}
	return name + " " + canonical(v)
}

func canonical(v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q:%s", k, canonical(x[k]))
		}
		b.WriteByte('}')
		return b.String()
	case string:
		return fmt.Sprintf("%q", strings.Join(strings.Fields(x), " "))
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}
