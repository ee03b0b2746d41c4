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
// (JSON, Python-style, Llama's <function=…>, ReAct) become real calls;
// reasoning a model left in the content (an orphan "</think>") moves out
// of it; a call swallowed by a <think> that never closed is taken from the
// end of the reasoning; a "final_answer" call becomes the answer. A call
// that cannot be read unambiguously is not guessed at: r.bounce is set to
// tell the model the format to use. It returns the message to record.
func (r *run) recoverCalls(msg llm.Message) llm.Message {
	msg.Content, msg.Thinking = splitOrphanThink(msg.Content, msg.Thinking)
	if len(msg.ToolCalls) > 0 {
		return msg
	}
	t := r.callTools()
	p := calls.Parse(msg.Content, t)
	if len(p.Calls) == 0 && p.Bounce == "" && strings.TrimSpace(msg.Content) == "" && msg.Thinking != "" {
		p = callAfterThinking(msg.Thinking, t)
	}
	if p.Bounce != "" {
		r.bounce = p.Bounce + " " + r.formatHint(p.Calls)
		return msg
	}
	if p.Format == calls.FormatFinal {
		msg.Content = p.Rest
		return msg
	}
	if len(p.Calls) == 0 {
		return msg
	}
	for i, f := range p.Calls {
		msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{
			ID: fmt.Sprintf("text_%d_%d", r.step, i+1), Name: f.Name, Arguments: f.Args,
		})
	}
	msg.Content = p.Rest
	r.meta.TextCalls += len(p.Calls)
	r.a.log.Debug("tool calls read from text", "run", r.in.RunID, "step", r.step, "format", p.Format, "calls", len(p.Calls))
	return msg
}

// callAfterThinking reads a call that ends a reply's reasoning — what a
// <think> that never closed swallows. Calls the reasoning only drafts
// earlier on do not count.
func callAfterThinking(thinking string, t calls.Tools) calls.Parsed {
	p := calls.Parse(thinking, t)
	if len(p.Calls) == 0 || p.Bounce != "" {
		return calls.Parsed{}
	}
	if !strings.HasPrefix(strings.TrimSpace(thinking), p.Rest) {
		return calls.Parsed{} // text follows the call: a draft, not the call
	}
	p.Rest = ""
	return p
}

// callTools is what the parser needs to know of the run's tools.
func (r *run) callTools() calls.Tools {
	primary := map[string]string{}
	for _, s := range r.specs {
		var sch struct {
			Required []string `json:"required"`
		}
		if json.Unmarshal(s.Parameters, &sch) == nil && len(sch.Required) == 1 {
			primary[s.Name] = sch.Required[0]
		}
	}
	return calls.Tools{
		IsTool: func(name string) bool {
			_, ok := calls.Match(name, r.toolNames)
			return ok
		},
		Primary: func(name string) string {
			n, _ := calls.Match(name, r.toolNames)
			return primary[n]
		},
	}
}

// formatHint tells the model how to write a call it can be read in.
func (r *run) formatHint(found []calls.Found) string {
	name := "run_sql"
	if len(found) > 0 {
		name = found[0].Name
	}
	if r.textMode {
		return fmt.Sprintf("Send the call again as one JSON object and nothing else, for example {\"name\": %q, \"arguments\": %s}.", name, example(name))
	}
	return fmt.Sprintf("Call the tool through tool calling, or write one JSON object and nothing else, for example {\"name\": %q, \"arguments\": %s}.", name, example(name))
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
	fixed, unfenced := calls.Unfence(fixed)
	if len(unfenced) > 0 {
		sort.Strings(unfenced)
		note = strings.TrimSpace(note + fmt.Sprintf(" (Loupe removed the ``` fence around %s; send the plain text, without Markdown.)", strings.Join(unfenced, ", ")))
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
