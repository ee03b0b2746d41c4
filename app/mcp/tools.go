package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupeapp/loupe/agent/report/vega"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/chart"
	"github.com/loupeapp/loupe/tools/profile"
	"github.com/loupeapp/loupe/tools/sqltool"
)

// Offered are the agent tools a client may call, by the name Loupe's agent
// knows them by; a source without one (a connection has no profile_data)
// does not offer it.
var Offered = []string{"describe_table", "sample_rows", sqltool.Name, profile.Name, chart.Name}

// addTools registers list_tables, the offered agent tools, ask and
// write_report.
func (s *Server) addTools() error {
	s.mcp.AddTool(listTablesTool, s.handle(listTablesTool.Name, s.listTables))
	for _, name := range Offered {
		t, ok := s.cfg.Source.Tools.Get(name)
		if !ok {
			continue
		}
		spec := t.Spec()
		var schema map[string]any
		if err := json.Unmarshal(spec.Parameters, &schema); err != nil {
			return fmt.Errorf("mcp: the parameters of %s: %w", name, err)
		}
		mt := &mcp.Tool{Name: spec.Name, Description: spec.Description, InputSchema: schema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}}
		s.mcp.AddTool(mt, s.handle(name, s.agentTool(t)))
	}
	s.mcp.AddTool(askTool, s.handle(askTool.Name, s.ask))
	s.mcp.AddTool(reportTool, s.handle(reportTool.Name, s.writeReport))
	return nil
}

// reply is what a handler has to send, before the gate: text blocks, a
// chart's spec to send with its picture, and whether it is a failure the
// client's model can act on.
type reply struct {
	texts  []string
	chart  json.RawMessage // a Vega-Lite spec with its data, or nil
	failed bool
	status string // for the call log; "" is ok or error by failed
	// conversation and message tie what is sent to an answer in the
	// outbox; empty for calls of no conversation.
	conversation, message string
}

// failure is a reply the client's model can act on.
func failure(msg string) *reply { return &reply{texts: []string{msg}, failed: true} }

// handler computes a reply from the client's arguments (with the values
// behind placeholders put back). An error is one the client cannot fix:
// it is said as a tool error too, unless ctx ended.
type handler func(ctx context.Context, req *mcp.CallToolRequest, args json.RawMessage) (*reply, error)

// agentTool runs one of Loupe's agent tools.
func (s *Server) agentTool(t tools.Tool) handler {
	spec := t.Spec()
	return func(ctx context.Context, _ *mcp.CallToolRequest, args json.RawMessage) (*reply, error) {
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		res, err := t.Run(ctx, args)
		if err != nil {
			return nil, err
		}
		r := &reply{texts: []string{s.view(ctx, spec, args, res)}, failed: res.Failed}
		if res.Failed && strings.HasPrefix(res.Summary, "refused") {
			r.status = StatusRefused
		}
		if ch := res.Display.Chart; ch != nil && !res.Failed && s.cfg.Gate.Level() != privacy.Schema {
			r.chart = ch.Spec
		}
		return r, nil
	}
}

// send passes r through the gate and makes the result: every text, the
// chart's spec and its SVG drawn from the spec as sent (so the picture
// shows placeholders where the data had private values). own is what the
// client wrote, its to have back.
func (s *Server) send(ctx context.Context, own string, r *reply) (*mcp.CallToolResult, error) {
	out := &mcp.CallToolResult{IsError: r.failed}
	for _, t := range r.texts {
		sent, err := s.cfg.Gate.Send(ctx, own, t)
		if err != nil {
			return nil, err
		}
		out.Content = append(out.Content, &mcp.TextContent{Text: sent})
	}
	if r.chart == nil {
		return out, nil
	}
	spec, err := s.cfg.Gate.SendJSON(ctx, own, r.chart)
	if err != nil {
		return nil, err
	}
	out.Content = append(out.Content, &mcp.TextContent{Text: "Vega-Lite spec (data inline):\n" + string(spec)})
	svg, err := vega.Shared().SVG(ctx, spec)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out.Content = append(out.Content, &mcp.TextContent{Text: "The chart could not be drawn as an image: " + err.Error()})
		return out, nil
	}
	out.Content = append(out.Content, &mcp.ImageContent{Data: svg, MIMEType: "image/svg+xml"})
	return out, nil
}
