package agenttest

import (
	"encoding/json"
	"strings"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/fake"
)

// Prompt is what request r told the model about the data: its system
// prompt and the data of the question's user turn (the last user turn the
// agent wrote with data before the user's words), one text.
func Prompt(r fake.Request) string {
	var sys, data string
	for _, m := range r.Messages {
		switch {
		case m.Role == llm.System && sys == "":
			sys = m.Content
		case m.Role == llm.User && agent.UserWords(m.Content) != m.Content:
			data = strings.TrimSuffix(m.Content, agent.UserWords(m.Content))
		}
	}
	return sys + "\n" + data
}

// Asked is the user's words of the question request r is about: the last
// user turn the agent wrote with data, without its data ("" if none).
func Asked(r fake.Request) string {
	q := ""
	for _, m := range r.Messages {
		if w := agent.UserWords(m.Content); m.Role == llm.User && w != m.Content {
			q = w
		}
	}
	return q
}

// PromptText is request r as a chat template lays it out for the model:
// the system message, the tools (Qwen's and Llama's templates put them at
// the end of the system turn), then each other message's role, content
// and tool calls. Two requests share the prefix of their PromptTexts that
// a model server can serve from its cache.
func PromptText(r fake.Request) string {
	var b strings.Builder
	msgs := r.Messages
	if len(msgs) > 0 && msgs[0].Role == llm.System {
		b.WriteString(string(llm.System) + "\x00" + msgs[0].Content)
		msgs = msgs[1:]
	}
	tools, _ := json.Marshal(r.Tools) // plain data: cannot fail
	b.Write(tools)
	for _, m := range msgs {
		b.WriteString("\x00" + string(m.Role) + "\x00" + m.Content)
		for _, c := range m.ToolCalls {
			b.WriteString("\x00" + c.Name + "\x00" + string(c.Arguments))
		}
	}
	return b.String()
}

// PrefixShare is the share of cur's prompt (PromptText) that is a verbatim
// prefix of prev's: what a model server that read prev need not read
// again for cur.
func PrefixShare(prev, cur fake.Request) float64 {
	return Share(PromptText(prev), PromptText(cur))
}

// Share is the length of the common prefix of prev and cur over cur's.
func Share(prev, cur string) float64 {
	if len(cur) == 0 {
		return 0
	}
	i := 0
	for i < len(prev) && i < len(cur) && prev[i] == cur[i] {
		i++
	}
	return float64(i) / float64(len(cur))
}

// ToolResultsSinceQuestion counts the tool results of r after its last
// question turn: the steps the current run has taken.
func ToolResultsSinceQuestion(r fake.Request) int {
	n := 0
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role == llm.User && agent.UserWords(m.Content) != m.Content {
			break
		}
		if m.Role == llm.Tool {
			n++
		}
	}
	return n
}
