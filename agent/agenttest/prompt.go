package agenttest

import (
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
