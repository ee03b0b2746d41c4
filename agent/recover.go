package agent

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/loupeapp/loupe/agent/calls"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/tools"
)

// CallReader reads the tool calls of a model's reply the way a run does,
// for a set of tools: calls written as text (JSON, Python-style, Llama's
// <function=…>, ReAct) become tool calls, near-miss names are matched and
// arguments repaired. It is what a run uses, exported so that batteries of
// replies can be run through the same path.
type CallReader struct {
	cat     catalog
	names   []string          // sorted
	aliases map[string]string // squashed alias → tool
	primary map[string]string // tool → its one required argument
}

// NewCallReader returns the reader for the tools of specs: their names,
// aliases, examples and one required argument come from the specs.
func NewCallReader(specs []tools.Spec) *CallReader {
	c := &CallReader{cat: newCatalog(specs), primary: map[string]string{}}
	byTool := map[string][]string{}
	for _, s := range specs {
		c.names = append(c.names, s.Name)
		byTool[s.Name] = s.Aliases
		var sch struct {
			Required []string `json:"required"`
		}
		if json.Unmarshal(s.Parameters, &sch) == nil && len(sch.Required) == 1 {
			c.primary[s.Name] = sch.Required[0]
		}
	}
	sort.Strings(c.names)
	c.aliases = calls.AliasIndex(byTool)
	return c
}

// Reading is what Read found in a reply.
type Reading struct {
	// Message is the reply to record: text calls moved into ToolCalls
	// (their IDs empty, for the caller to set), the calls' text cut out
	// of Content, reasoning out of the answer.
	Message llm.Message
	// TextCalls is how many calls were read from text; Format their family.
	TextCalls int
	Format    string
	// Bounce, when set, says what was wrong with a call the reply tried to
	// write; nothing was read from it.
	Bounce string
}

// Read reads one reply. Native tool calls are kept as they are; otherwise
// calls written as text are read, a call that ends the reasoning of a
// <think> that never closed is taken, and a "final_answer" call becomes
// the answer. A call that cannot be read unambiguously is not guessed at:
// Bounce says what was wrong.
func (c *CallReader) Read(msg llm.Message) Reading {
	msg.Content, msg.Thinking = splitOrphanThink(msg.Content, msg.Thinking)
	if len(msg.ToolCalls) > 0 {
		return Reading{Message: msg}
	}
	t := c.tools()
	p := calls.Parse(msg.Content, t)
	if len(p.Calls) == 0 && p.Bounce == "" && strings.TrimSpace(msg.Content) == "" && msg.Thinking != "" {
		p = callAfterThinking(msg.Thinking, t)
	}
	switch {
	case p.Bounce != "":
		return Reading{Message: msg, Format: p.Format, Bounce: p.Bounce}
	case p.Format == calls.FormatFinal:
		msg.Content = p.Rest
		return Reading{Message: msg, Format: p.Format}
	case len(p.Calls) == 0:
		return Reading{Message: msg}
	}
	for _, f := range p.Calls {
		msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{Name: f.Name, Arguments: f.Args})
	}
	msg.Content = p.Rest
	return Reading{Message: msg, TextCalls: len(p.Calls), Format: p.Format}
}

// recoverCalls is the phase between think and act: it reads the reply
// with the run's CallReader, numbers the calls read from text, and sets
// r.bounce (with the format to use) for a call that could not be read.
func (r *run) recoverCalls(msg llm.Message) llm.Message {
	rd := r.reader.Read(msg)
	if rd.Bounce != "" {
		r.bounce = rd.Bounce + " " + r.formatHint()
		return rd.Message
	}
	if rd.TextCalls == 0 {
		return rd.Message
	}
	for i := range rd.Message.ToolCalls {
		rd.Message.ToolCalls[i].ID = fmt.Sprintf("text_%d_%d", r.step, i+1)
	}
	r.meta.TextCalls += rd.TextCalls
	r.a.log.Debug("tool calls read from text", "run", r.in.RunID, "step", r.step, "format", rd.Format, "calls", rd.TextCalls)
	return rd.Message
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

// tools is what the parser needs to know of the tools.
func (c *CallReader) tools() calls.Tools {
	return calls.Tools{
		Names: c.names,
		IsTool: func(name string) bool {
			_, ok := calls.Match(name, c.names, c.aliases)
			return ok
		},
		Primary: func(name string) string {
			n, _ := calls.Match(name, c.names, c.aliases)
			return c.primary[n]
		},
	}
}

// spec is the Spec of the tool name (as a model wrote it) means; zero
// when it means none.
func (c *CallReader) spec(name string) tools.Spec {
	n, _ := calls.Match(name, c.names, c.aliases)
	return c.cat.byName[n]
}

// formatHint tells the model how to write a call that can be read, with
// an example call of the run's query tool.
func (r *run) formatHint() string {
	q := r.reader.cat.queryTool()
	eg := fmt.Sprintf("{\"name\": %q, \"arguments\": %s}", q.Name, r.reader.cat.example(q.Name))
	if r.textMode {
		return "Send the call again as one JSON object and nothing else, for example " + eg + "."
	}
	return "Call the tool through tool calling, or write one JSON object and nothing else, for example " + eg + "."
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

// Resolve finds the tool a call means and arguments that parse, with
// fences around string arguments removed. note, when set, tells the model
// what Loupe corrected; failure, when set, is the corrective message for a
// call that cannot be run.
func (c *CallReader) Resolve(call llm.ToolCall) (name string, args json.RawMessage, note, failure string) {
	name, ok := calls.Match(call.Name, c.names, c.aliases)
	if !ok {
		return call.Name, nil, "", fmt.Sprintf("There is no tool called %q. Use one of: %s.", call.Name, strings.Join(c.names, ", "))
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
		return name, nil, note, fmt.Sprintf("The arguments of %s are not valid JSON (%v). Send a JSON object, for example %s.", name, err, c.cat.example(name))
	}
	fixed, unfenced := calls.Unfence(fixed)
	if len(unfenced) > 0 {
		sort.Strings(unfenced)
		note = strings.TrimSpace(note + fmt.Sprintf(" (Loupe removed the ``` fence around %s; send the plain text, without Markdown.)", strings.Join(unfenced, ", ")))
	}
	return name, fixed, note, ""
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
