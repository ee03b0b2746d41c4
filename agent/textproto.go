package agent

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/loupeapp/loupe/agent/llm"
)

// textProtocol rewrites msgs for a model served without native tool
// support: the tools are described in the system prompt, earlier calls
// appear as the JSON the model is asked to write, and tool results come
// back as user messages. The model's JSON replies are read by recoverCalls.
func textProtocol(msgs []llm.Message, specs []llm.ToolSpec) []llm.Message {
	out := make([]llm.Message, 0, len(msgs))
	for i, m := range msgs {
		switch {
		case i == 0 && m.Role == llm.System:
			m.Content += toolProtocol(specs)
		case m.Role == llm.Assistant && len(m.ToolCalls) > 0:
			var b strings.Builder
			if strings.TrimSpace(m.Content) != "" {
				b.WriteString(m.Content + "\n")
			}
			for _, c := range m.ToolCalls {
				args := c.Arguments
				if !json.Valid(args) {
					args = json.RawMessage("{}")
				}
				fmt.Fprintf(&b, "{\"name\": %q, \"arguments\": %s}\n", c.Name, args)
			}
			m = llm.Message{Role: llm.Assistant, Content: strings.TrimSpace(b.String())}
		case m.Role == llm.Tool:
			m = llm.Message{Role: llm.User, Content: fmt.Sprintf("Result of %s:\n%s", m.Name, m.Content)}
		}
		out = append(out, m)
	}
	return out
}

// toolProtocol describes the tools and how to call them in text.
func toolProtocol(specs []llm.ToolSpec) string {
	var b strings.Builder
	b.WriteString("\n## Calling tools\nTo call a tool, reply with only one JSON object and nothing else:\n{\"name\": \"<tool>\", \"arguments\": {…}}\nThe result comes back in the next message. When you have the answer, reply in plain text, not JSON.\n\nTools:\n")
	for _, s := range specs {
		fmt.Fprintf(&b, "- %s: %s Arguments: %s\n", s.Name, firstSentence(s.Description), argSummary(s.Parameters))
	}
	return b.String()
}

func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}

// argSummary renders a JSON Schema object's properties compactly:
// {"sql": string (required), "purpose": string}.
func argSummary(schema json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return "{}"
	}
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if req[names[i]] != req[names[j]] {
			return req[names[i]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, 0, len(names))
	for _, n := range names {
		p := fmt.Sprintf("%q: %v", n, s.Properties[n].Type)
		if req[n] {
			p += " (required)"
		}
		parts = append(parts, p)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
