package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/tools"
)

var reportTool = &mcp.Tool{
	Name: "write_report",
	Description: "Write the report of an answer ask gave (pass its conversation_id): Loupe's model writes it from the answer's queries and charts. " +
		"The report is kept with the conversation in Loupe (shown in its window, readable as the resource loupe://reports/ID); its markdown is returned.",
	InputSchema: map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"conversation_id": map[string]any{"type": "string", "description": "the conversation_id an ask returned"}},
		"required":             []string{"conversation_id"},
		"additionalProperties": false,
	},
	Annotations: &mcp.ToolAnnotations{OpenWorldHint: new(false)},
}

// ErrNoModel is said by ask and write_report when Loupe has no model.
var ErrNoModel = errors.New("Loupe has no model set for its own agent: choose one in Loupe's Settings (or start loupe mcp with --model, or $LOUPE_MODEL); the other tools work without one")

// model opens Loupe's model for ask and write_report.
func (s *Server) model() (*config.Model, error) {
	if s.cfg.Model == nil {
		return nil, ErrNoModel
	}
	m, err := s.cfg.Model()
	if err != nil {
		return nil, fmt.Errorf("Loupe's model cannot be used: %w", err)
	}
	return m, nil
}

func (s *Server) writeReport(ctx context.Context, _ *mcp.CallToolRequest, raw json.RawMessage) (*reply, error) {
	var a struct {
		Chat string `json:"conversation_id"`
	}
	if err := strictDecode(raw, &a); err != nil || a.Chat == "" {
		return failure(`write_report takes {"conversation_id": "…"}, as an ask returned it.`), nil
	}
	s.mu.Lock()
	ans, ok := s.answers[a.Chat]
	s.mu.Unlock()
	if !ok {
		return failure(fmt.Sprintf("No finished answer of conversation %q was asked through this server: call ask first, then write_report with the conversation_id it returned.", a.Chat)), nil
	}
	m, err := s.model()
	if err != nil {
		return failure(err.Error()), nil
	}
	p, err := m.Guard(s.cfg.Source.Private)
	if err != nil {
		return nil, err
	}
	rctx, err := assemble.SendFor(tools.WithChat(ctx, a.Chat), s.cfg.Store, a.Chat, ans.messageID, m.Level, m.Server())
	if err != nil {
		return nil, err
	}
	rep, err := session.WriteReport(rctx, session.ReportRequest{Store: s.cfg.Store, MessageID: ans.messageID, Question: ans.question,
		Outcome: ans.out, Provider: p, Model: m.Config.Model, Level: m.Level})
	if rep == nil {
		return nil, err
	}
	if err != nil {
		s.log.Warn("save a report", "conversation", a.Chat, "err", err)
	}
	s.addReportResource(a.Chat, rep.Report.Title)
	return &reply{texts: []string{rep.Report.Markdown()}, conversation: a.Chat, message: ans.messageID}, nil
}
