// Package masked is the privacy gate in front of a chat model: a Provider
// that, at the Masked level, replaces every private value in what is sent
// with its placeholder (<email_3>) and puts the values back in what comes
// back, so that the agent, its tools, the trace and the user all work with
// real values while the model sees none of them.
//
// It is the one place every request passes, whatever produced its text:
// the system prompt's samples, tool results, errors that quote a value,
// run_python's output, earlier turns, the report stage.
package masked

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/agent/llm"
)

// Masker is what the gate needs of a conversation's masker (the data
// layer's privacy.Masker): text and JSON masked on the way out, and the
// placeholders put back on the way in. MaskJSON and UnmaskCall keep JSON
// valid (values stay escaped).
type Masker interface {
	MaskText(s string) string
	MaskJSON(raw []byte) []byte
	Unmask(s string) string
	UnmaskJSON(raw []byte) []byte
	UnmaskCall(raw []byte) []byte
}

// Session returns the masker of the conversation ctx belongs to, with the
// private columns' values already known to it. An error stops the request:
// nothing is sent unmasked.
type Session func(ctx context.Context) (Masker, error)

// Provider masks requests to next and unmasks its replies.
type Provider struct {
	llm.Wrapped // Models, Name and the optional capabilities go to Next
	session     Session
}

var _ llm.Provider = (*Provider)(nil)

// New returns next behind the gate; session gives each request's masker.
func New(next llm.Provider, session Session) *Provider {
	return &Provider{Wrapped: llm.Wrapped{Next: next}, session: session}
}

// ErrPrepare wraps a failure to learn the private values before a request;
// the request is not sent.
var ErrPrepare = errors.New("prepare the privacy mask")

// Chat masks req, sends it, and unmasks the reply and its stream.
func (p *Provider) Chat(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	m, err := p.session(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return llm.Response{}, ctx.Err()
		}
		return llm.Response{}, fmt.Errorf("%w: %w (nothing was sent to the model)", ErrPrepare, err)
	}
	req = Request(m, req)
	var st *stream
	if onDelta != nil {
		st = &stream{m: m, out: onDelta}
		onDelta = st.push
	}
	resp, err := p.Next.Chat(ctx, req, onDelta)
	if st != nil {
		st.flush()
	}
	resp.Message = unmaskMessage(m, resp.Message, len(req.Format) > 0)
	return resp, err
}

// Request returns a copy of req with every private value masked: message
// text, thinking, tool-call arguments (as JSON, so values stay escaped)
// and tool names are left alone.
func Request(m Masker, req llm.Request) llm.Request {
	msgs := make([]llm.Message, len(req.Messages))
	for i, msg := range req.Messages {
		msg.Content = m.MaskText(msg.Content)
		msg.Thinking = m.MaskText(msg.Thinking)
		if len(msg.ToolCalls) > 0 {
			calls := make([]llm.ToolCall, len(msg.ToolCalls))
			for j, c := range msg.ToolCalls {
				c.Arguments = m.MaskJSON(c.Arguments)
				calls[j] = c
			}
			msg.ToolCalls = calls
		}
		msgs[i] = msg
	}
	req.Messages = msgs
	return req
}

// unmaskMessage puts the values back in a reply. A structured reply (the
// request had a Format) is JSON, unmasked string by string.
func unmaskMessage(m Masker, msg llm.Message, structured bool) llm.Message {
	switch c := strings.TrimSpace(msg.Content); {
	case structured:
		msg.Content = string(m.UnmaskJSON([]byte(msg.Content)))
	case strings.HasPrefix(c, "{") && json.Valid([]byte(c)):
		// A tool call written as text (the text protocol): unmasked as
		// the arguments of a native call are.
		msg.Content = string(m.UnmaskCall([]byte(c)))
	default:
		msg.Content = m.Unmask(msg.Content)
	}
	msg.Thinking = m.Unmask(msg.Thinking)
	for i := range msg.ToolCalls {
		msg.ToolCalls[i].Arguments = m.UnmaskCall(msg.ToolCalls[i].Arguments)
	}
	return msg
}

// maxPlaceholder bounds how long a placeholder can be; a '<' further back
// than this from the end of the stream is not the start of one.
const maxPlaceholder = 48

// stream unmasks streamed text, holding back a tail that may be the start
// of a placeholder split across deltas.
type stream struct {
	m        Masker
	out      func(llm.Delta)
	text     string
	thinking string
}

func (s *stream) push(d llm.Delta) {
	if d.Restart {
		s.text, s.thinking = "", ""
		s.out(d)
		return
	}
	if d.Content != "" {
		ready, rest := split(s.text + d.Content)
		s.text = rest
		if ready != "" {
			s.out(llm.Delta{Content: s.m.Unmask(ready)})
		}
	}
	if d.Thinking != "" {
		ready, rest := split(s.thinking + d.Thinking)
		s.thinking = rest
		if ready != "" {
			s.out(llm.Delta{Thinking: s.m.Unmask(ready)})
		}
	}
}

func (s *stream) flush() {
	if s.text != "" {
		s.out(llm.Delta{Content: s.m.Unmask(s.text)})
	}
	if s.thinking != "" {
		s.out(llm.Delta{Thinking: s.m.Unmask(s.thinking)})
	}
	s.text, s.thinking = "", ""
}

// split cuts t before an unfinished placeholder at its end.
func split(t string) (ready, rest string) {
	i := strings.LastIndexByte(t, '<')
	if i < 0 || len(t)-i > maxPlaceholder || strings.IndexByte(t[i:], '>') >= 0 {
		return t, ""
	}
	return t[:i], t[i:]
}
