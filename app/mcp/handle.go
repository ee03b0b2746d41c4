package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
)

// handle wraps h as an SDK tool handler: the client's arguments are
// unmasked, the reply goes through the gate, what is sent is kept in the
// outbox, and the call is recorded in the call log.
//
// As the MCP specification says, a failure the client's model can act on
// (a refused statement, bad SQL, bad arguments, a privacy refusal) is a
// result with isError set; a call that was canceled gets no result (the
// SDK drops it); an unknown tool is a protocol error (the SDK's).
func (s *Server) handle(name string, h handler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		ctx = s.gated(ctx)
		client := clientName(req)
		res, r, err := s.call(ctx, req, h)
		status := callStatus(ctx, r, err)
		if err != nil && ctx.Err() == nil {
			res, err = s.errorResult(ctx, string(req.Params.Arguments), err), nil
		}
		if res != nil {
			s.keepBody(ctx, client, "tools/"+name, r, res)
		}
		s.cfg.Calls.Add(Call{At: start, Tool: name, Client: client, Status: status, Millis: time.Since(start).Milliseconds(),
			Source: s.cfg.Label, Level: string(s.cfg.Gate.Level()), Error: callError(status, err, res)})
		if err != nil {
			return nil, err
		}
		return res, nil
	}
}

// call runs h and passes its reply through the gate.
func (s *Server) call(ctx context.Context, req *mcp.CallToolRequest, h handler) (*mcp.CallToolResult, *reply, error) {
	own := string(req.Params.Arguments)
	args, err := s.cfg.Gate.Receive(ctx, req.Params.Arguments)
	if err != nil {
		return nil, nil, err
	}
	r, err := h(ctx, req, args)
	if err != nil {
		return nil, r, err
	}
	if ctx.Err() != nil {
		return nil, r, ctx.Err()
	}
	res, err := s.send(ctx, own, r)
	if err != nil {
		return nil, r, &privacyError{err}
	}
	return res, r, nil
}

// keepBody stores what was sent (v, as JSON) in the outbox, as a request
// to mcp://CLIENT/PATH: with its answer when the reply belongs to one,
// else for no conversation (`loupe outbox`).
func (s *Server) keepBody(ctx context.Context, client, path string, r *reply, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		s.log.Warn("encode a result for the outbox", "path", path, "err", err)
		return
	}
	o := assemble.Outbox{Store: s.cfg.Store, Level: s.cfg.Gate.Level()}
	if r != nil {
		o.ConversationID, o.MessageID = r.conversation, r.message
	}
	sent := provider.Sent{At: time.Now(), Method: "MCP", URL: "mcp://" + client + "/" + path, Body: body}
	if err := o.Keep(ctx, sent); err != nil {
		s.log.Warn("keep a result in the outbox", "path", path, "err", err)
	}
}

// errorResult is a failure the client cannot fix, said as a tool error.
// Its text passes the gate too (an error may quote a value); one the gate
// keeps back is said without its details.
func (s *Server) errorResult(ctx context.Context, own string, err error) *mcp.CallToolResult {
	msg := errorText(err)
	sent, gerr := s.cfg.Gate.Send(ctx, own, msg)
	if gerr != nil {
		sent = "Loupe could not do this, and its error is kept from you by the privacy level; the user can read it in Loupe's log."
		s.log.Warn("a tool failed", "err", err)
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: sent}}}
}

// errorText is what the client's model reads of a failure it cannot fix.
func errorText(err error) string {
	var pe *privacyError
	if errors.As(err, &pe) {
		return pe.Error()
	}
	return "Loupe could not do this: " + err.Error()
}

func clientName(req *mcp.CallToolRequest) string {
	if req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			return p.ClientInfo.Name
		}
	}
	return "client"
}

// privacyError is a reply the gate would not let through.
type privacyError struct{ err error }

func (e *privacyError) Error() string {
	return "Loupe's privacy level kept this result from you: " + e.err.Error()
}
func (e *privacyError) Unwrap() error { return e.err }
