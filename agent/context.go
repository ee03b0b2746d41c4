package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/agent/llm"
)

// contextSizer is a provider that knows a model's context window (Ollama).
type contextSizer interface {
	ContextLength(ctx context.Context, model string) (int, error)
}

// toolSupporter is a provider that knows whether a model takes native
// tools (Ollama).
type toolSupporter interface {
	SupportsTools(ctx context.Context, model string) (supported, known bool, err error)
}

// prefersText reports whether the provider says the model takes no native
// tools, so the run can use the text protocol from its first step instead
// of learning it from a refused request.
func (r *run) prefersText(ctx context.Context) bool {
	ts, ok := r.a.cfg.Provider.(toolSupporter)
	if !ok {
		return false
	}
	supported, known, err := ts.SupportsTools(ctx, r.a.cfg.Model)
	return err == nil && known && !supported
}

// contextLimit is the model's context window in tokens: Config's, else the
// provider's, else 0 (unknown: nothing is compacted).
func (r *run) contextLimit(ctx context.Context) int {
	if r.a.cfg.ContextTokens > 0 {
		return r.a.cfg.ContextTokens
	}
	cs, ok := r.a.cfg.Provider.(contextSizer)
	if !ok {
		return 0
	}
	n, err := cs.ContextLength(ctx, r.a.cfg.Model)
	if err != nil {
		return 0 // the chat itself will report an unreachable server
	}
	return n
}

// Room is kept for the reply: compaction starts when the prompt passes
// this share of the window.
const promptShare = 0.75

// fit returns msgs compacted to fit limit tokens, leaving room for the
// reply. msgs[0] is the system prompt and msgs[first] the run's question;
// messages before first are earlier turns. It compacts, in order, until
// the estimate fits: large tool results of earlier steps, then every tool
// result but the last, then earlier turns (keeping the user's own words),
// then what the model wrote in earlier steps. The user's question and the
// last tool result are never cut. It reports how many messages it changed.
func fit(msgs []llm.Message, first, limit int) ([]llm.Message, int) {
	budget := int(float64(limit) * promptShare)
	if limit <= 0 || estimateMessages(msgs) <= budget {
		return msgs, 0
	}
	out := append([]llm.Message(nil), msgs...)
	lastTool := -1
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].Role == llm.Tool {
			lastTool = i
			break
		}
	}
	changed := map[int]bool{}
	passes := []func(i int, m llm.Message) (llm.Message, bool){
		func(i int, m llm.Message) (llm.Message, bool) { // older large tool results
			if m.Role == llm.Tool && i < lastTool-2 {
				return trim(m, 800)
			}
			return m, false
		},
		func(i int, m llm.Message) (llm.Message, bool) { // every tool result but the last
			if m.Role == llm.Tool && i != lastTool {
				return trim(m, 300)
			}
			return m, false
		},
		func(i int, m llm.Message) (llm.Message, bool) { // earlier turns
			if i == 0 || i >= first {
				return m, false
			}
			if m.Role == llm.User {
				return trim(m, 1000)
			}
			// A replayed run's native calls stay: their results follow
			// them, and a result without its call is refused.
			return trim(m, 200)
		},
		func(i int, m llm.Message) (llm.Message, bool) { // the model's own earlier text in this run
			if m.Role == llm.Assistant && i >= first && i < len(out)-1 {
				return trim(m, 300)
			}
			return m, false
		},
	}
	for _, pass := range passes {
		for i, m := range out {
			if nm, ok := pass(i, m); ok {
				out[i] = nm
				changed[i] = true
			}
		}
		if estimateMessages(out) <= budget {
			break
		}
	}
	return out, len(changed)
}

// trim cuts m's content to about n characters, saying so.
func trim(m llm.Message, n int) (llm.Message, bool) {
	if len(m.Content) <= n+80 {
		return m, false
	}
	cut := m.Content[:n]
	if i := strings.LastIndexByte(cut, '\n'); i > n/2 {
		cut = cut[:i]
	}
	m.Content = cut + fmt.Sprintf("\n… [%d characters trimmed to fit the model's context]", len(m.Content)-len(cut))
	return m, true
}

// estimateMessages estimates the tokens of msgs, with a small overhead per
// message for the chat template.
func estimateMessages(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += 4 + estimateTokens(m.Content)
		for _, c := range m.ToolCalls {
			n += 8 + estimateTokens(c.Name) + estimateTokens(string(c.Arguments))
		}
	}
	return n
}
