package assemble

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/app/retrieve"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/sqltool"
)

// Gate is the privacy gate in front of a model Loupe does not drive: an
// MCP host's model that calls Loupe's tools itself. Everything sent to it
// passes the very gates a request to a hosted provider passes at the same
// level (Guard): at Masked the private values become the conversation's
// placeholders, at Schema a text holding a known value of the data is
// refused. The tools built by WorkspaceTools and RemoteTools teach the gate
// the values their queries derive from private columns, as an agent's do.
type Gate struct {
	level privacy.Level
	g     *guard       // nil at Open
	p     llm.Provider // the gate's provider in front of capture
}

// NewGate returns the gate of level over src's private columns.
func NewGate(level privacy.Level, src Private) (*Gate, error) {
	g, err := newGuard(level, src)
	if err != nil {
		return nil, err
	}
	if level == "" {
		level = privacy.Open
	}
	return &Gate{level: level, g: g, p: g.provider(capture{})}, nil
}

// Level is the gate's privacy level.
func (g *Gate) Level() privacy.Level { return g.level }

// QuestionMask is what the gate's level does to the text the semantic
// boost sends its embedding model (see the package's QuestionMask): at
// Masked the conversation's mask, else nil.
func (g *Gate) QuestionMask() func(context.Context, string) (string, error) {
	return g.g.questionMask()
}

// WorkspaceTools is the standard tool set over ws (Tools) whose run_sql
// teaches the gate what its results derive from private columns.
func (g *Gate) WorkspaceTools(ws *workspace.Workspace, store *results.Store, extra ...tools.Tool) (*tools.Set, error) {
	return workspaceTools(ws, store, sqltool.Config{Observe: g.g.observer()}, extra...)
}

// RemoteTools is RemoteTools with run_sql teaching the gate likewise.
func (g *Gate) RemoteTools(r *retrieve.Remote, store *results.Store) (*tools.Set, error) {
	return remoteTools(r, store, sqltool.Config{Observe: g.g.observer()})
}

// Send returns text as it may be sent (masked at Masked), or an error and
// nothing to send: the mask could not be prepared, or (at Schema) text
// holds a value of the data. own is what the receiving model itself wrote
// (its SQL, its question): a value in it is its own to have back, as the
// user's words are in a request to a provider. The conversation of ctx
// (tools.WithChat) picks the placeholders.
func (g *Gate) Send(ctx context.Context, own, text string) (string, error) {
	if g.g == nil {
		return text, nil
	}
	msg, err := g.pass(ctx, own, llm.Message{Role: llm.Tool, Content: text})
	return msg.Content, err
}

// SendJSON is Send for a JSON document (a chart's spec with its data):
// masked value by value, so that it stays valid JSON.
func (g *Gate) SendJSON(ctx context.Context, own string, doc json.RawMessage) (json.RawMessage, error) {
	if g.g == nil {
		return doc, nil
	}
	msg, err := g.pass(ctx, own, llm.Message{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "send", Arguments: doc}}})
	if err != nil {
		return nil, err
	}
	if len(msg.ToolCalls) != 1 {
		return nil, errors.New("assemble: the gate lost the document")
	}
	return msg.ToolCalls[0].Arguments, nil
}

// pass sends msg through the gate after own (the receiver's words) and
// returns it as the gate let it through.
func (g *Gate) pass(ctx context.Context, own string, msg llm.Message) (llm.Message, error) {
	var slot llm.Message
	req := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: own}, msg}}
	if _, err := g.p.Chat(context.WithValue(ctx, slotKey{}, &slot), req, nil); err != nil {
		return llm.Message{}, err
	}
	return slot, nil
}

// Receive puts back, in args the model wrote (a JSON object), the values
// behind the placeholders it was sent, as the gate does for a provider's
// tool calls.
func (g *Gate) Receive(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	if g.g == nil || g.g.schema != nil || len(args) == 0 {
		return args, nil
	}
	m, err := g.g.masker(ctx)
	if err != nil {
		return nil, err
	}
	return g.g.unmaskCall(m, args), nil
}

// capture is the end of the gate's chain: instead of sending, it keeps the
// last message as the gate let it through, in the slot of the request's
// context.
type capture struct{}

type slotKey struct{}

var _ llm.Provider = capture{}

func (capture) Chat(ctx context.Context, req llm.Request, _ func(llm.Delta)) (llm.Response, error) {
	slot, ok := ctx.Value(slotKey{}).(*llm.Message)
	if !ok || len(req.Messages) == 0 {
		return llm.Response{}, errors.New("assemble: the gate was called without a slot")
	}
	*slot = req.Messages[len(req.Messages)-1]
	return llm.Response{}, nil
}

func (capture) Models(context.Context) ([]llm.Model, error) { return nil, nil }
func (capture) Name() string                                { return "gate" }
