package calls

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Tools is what Parse knows of the tools on offer.
type Tools struct {
	// IsTool reports whether a name (as written) means a tool.
	IsTool func(string) bool
	// Names are the tools' own names (optional): a tag counts as a call
	// only when it names one of them, or a long alias.
	Names []string
	// Primary returns the argument a call written with one bare value
	// means (run_sql("SELECT …") → "sql"), or "" when the tool has no
	// single required argument. Nil means never.
	Primary func(string) string
}

// Parsed is what Parse read in a reply.
type Parsed struct {
	Calls []Found
	// Rest is the reply's text with the calls cut out — or, when the
	// model "called" final_answer, that answer.
	Rest string
	// Format names the family the calls were written in ("json",
	// "python", "llama-function", "react", "final-answer"), "" if none.
	Format string
	// Bounce, when set, says that the reply tried to call a tool in a way
	// that cannot be read unambiguously, and what was wrong; nothing was
	// run. The caller sends it back with the format to use.
	Bounce string
}

// Format families.
const (
	FormatJSON   = "json"
	FormatPython = "python"
	FormatLlama  = "llama-function"
	FormatReAct  = "react"
	FormatXML    = "xml"
	FormatTagged = "tagged" // a tool's name in a token or tag: DeepSeek, gpt-oss, Mistral [ARGS], <invoke>
	FormatFinal  = "final-answer"
)

// Parse finds the tool calls a reply wrote as text, in any of the families
// small models use: JSON objects (bare, fenced, in <tool_call> tags, after
// <|python_tag|>), Python-style calls (bare, in a ```tool_code fence or a
// [list]), Llama's <function=name>{…}</function>, and ReAct's
// "Action:"/"Action Input:" lines. A call counts only when it names a tool
// and stands on its own line, so an answer that shows SQL or mentions a
// tool's name stays an answer.
func Parse(content string, t Tools) Parsed {
	if t.Primary == nil {
		t.Primary = func(string) string { return "" }
	}
	p := parse(content, t)
	for i, f := range p.Calls {
		p.Calls[i].Args = objectArgs(f.Name, f.Args, t)
	}
	return p
}

// objectArgs makes arguments given as one bare value ("action_input":
// "SELECT …") the tool's one required argument.
func objectArgs(name string, args json.RawMessage, t Tools) json.RawMessage {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return args
	}
	if _, isObj := v.(map[string]any); isObj {
		return args
	}
	key := t.Primary(name)
	if s, ok := v.(string); ok && key != "" {
		b, _ := json.Marshal(map[string]string{key: unfence(s)})
		return b
	}
	return args
}

func parse(content string, t Tools) Parsed {
	text := stripSpecial(content)
	for _, try := range []func(string, Tools) (Parsed, bool){llamaFunctions, taggedCalls, react, pythonCalls, xmlCalls} {
		if p, ok := try(text, t); ok {
			return p
		}
	}
	found, rest := Extract(text, withFinal(t))
	if len(found) > 0 {
		return finalAnswer(Parsed{Calls: found, Rest: rest, Format: FormatJSON})
	}
	if name, ok := Attempted(text, t.IsTool); ok {
		return Parsed{Rest: content, Bounce: fmt.Sprintf("Your reply looks like a JSON call to %s, but it is not valid JSON, so nothing was run.", name)}
	}
	return Parsed{Rest: content}
}

// special are the chat-template tokens Llama models leak into content.
var special = []string{"<|python_tag|>", "<|eom_id|>", "<|eot_id|>", "<|start_header_id|>assistant<|end_header_id|>"}

func stripSpecial(s string) string {
	for _, tok := range special {
		s = strings.ReplaceAll(s, tok, "\n")
	}
	if strings.ContainsAny(s, "\n") && s != "" {
		return strings.Trim(s, "\n")
	}
	return s
}

// isFinal reports whether a name is the "final answer" pseudo-tool some
// agent frameworks teach models to call.
func isFinal(name string) bool {
	switch squash(name) {
	case "finalanswer", "final", "answer", "respond", "finish", "directlyanswer", "directanswer":
		return true
	}
	return false
}

// finalAnswer turns a lone call to final_answer into the answer it carries.
func finalAnswer(p Parsed) Parsed {
	if len(p.Calls) != 1 || !isFinal(p.Calls[0].Name) {
		return p
	}
	var m map[string]any
	if json.Unmarshal(p.Calls[0].Args, &m) != nil {
		return p
	}
	for _, k := range []string{"answer", "text", "content", "response", "final_answer", "output", "result"} {
		if s, ok := m[k].(string); ok {
			return Parsed{Rest: strings.TrimSpace(s), Format: FormatFinal}
		}
	}
	if len(m) == 1 {
		for _, v := range m {
			if s, ok := v.(string); ok {
				return Parsed{Rest: strings.TrimSpace(s), Format: FormatFinal}
			}
		}
	}
	return p
}

// withFinal makes IsTool accept the final-answer pseudo-tool too.
func withFinal(t Tools) func(string) bool {
	return func(n string) bool { return t.IsTool(n) || isFinal(n) }
}

var llamaOpen = regexp.MustCompile(`<function=([\w.\-]+)>`)

// llamaFunctions reads Llama 3.x's <function=name>{json}</function>.
func llamaFunctions(s string, t Tools) (Parsed, bool) {
	locs := llamaOpen.FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 {
		return Parsed{}, false
	}
	var p Parsed
	var rest strings.Builder
	prev := 0
	for _, l := range locs {
		if l[0] < prev {
			continue
		}
		name := s[l[2]:l[3]]
		body := s[l[1]:]
		end := strings.Index(body, "</function>")
		after := l[1] + len(body)
		if end >= 0 {
			after = l[1] + end + len("</function>")
			body = body[:end]
		}
		rest.WriteString(s[prev:l[0]])
		prev = after
		raw, ok := taggedArgs(body)
		if !ok {
			p.Bounce = fmt.Sprintf("Your reply looks like a call to %s in Llama's <function=…> form, but its arguments are not one valid JSON object, so nothing was run.", name)
			return Parsed{Rest: s, Bounce: p.Bounce, Format: FormatLlama}, true
		}
		p.Calls = append(p.Calls, Found{Name: name, Args: raw})
	}
	rest.WriteString(s[prev:])
	p.Rest, p.Format = clean(rest.String()), FormatLlama
	return finalAnswer(p), true
}
