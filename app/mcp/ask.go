package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/store"
)

var askTool = &mcp.Tool{
	Name: "ask",
	Description: "Hand a whole question about the user's data to Loupe's own agent, which explores the tables, runs the queries and checks its numbers. " +
		"Returns its summary, its findings and the SQL behind each, and a conversation_id: pass it back to ask a follow-up or to write_report. " +
		"It takes a while (progress is reported); cancel it to stop.",
	InputSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"question":        map[string]any{"type": "string", "description": "the question, in words"},
			"conversation_id": map[string]any{"type": "string", "description": "continue this conversation (from an earlier ask) with a follow-up"},
		},
		"required":             []string{"question"},
		"additionalProperties": false,
	},
	Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
}

// maxAnswers bounds the answers kept for write_report.
const maxAnswers = 64

// answer is a finished answer asked through this server, kept so that
// write_report can write its report.
type answer struct {
	messageID, question string
	out                 *agent.Outcome
}

func (s *Server) ask(ctx context.Context, req *mcp.CallToolRequest, raw json.RawMessage) (*reply, error) {
	var a struct {
		Question string `json:"question"`
		Chat     string `json:"conversation_id"`
	}
	if err := strictDecode(raw, &a); err != nil || strings.TrimSpace(a.Question) == "" {
		return failure(`ask takes {"question": "…"} and, for a follow-up, "conversation_id" from an earlier ask.`), nil
	}
	m, err := s.model()
	if err != nil {
		return failure(err.Error()), nil
	}
	st := s.cfg.Store
	runID := store.NewID("run")
	pair, claim, err := s.startAnswer(ctx, a.Chat, strings.TrimSpace(a.Question), runID)
	if err != nil {
		return failure(err.Error()), nil
	}
	chat := pair.User.ConversationID
	rec := session.NewRecorder(claim)
	rec.MergeDeltas = true
	failed := func(err error) {
		_ = rec.Record(agent.Event{Type: agent.RunFinished, RunID: runID, Finished: &agent.Outcome{RunID: runID, Status: agent.Failed, Reason: err.Error()}})
	}
	actx, err := assemble.SendFor(ctx, st, chat, pair.Assistant.ID, m.Level, m.Server())
	if err != nil {
		failed(err)
		return nil, err
	}
	sink := &progressSink{rec: rec, notify: progress(ctx, req)}
	out, err := session.Ask(actx, session.AskRequest{Store: st, Pair: pair, Recorder: rec, Target: s.cfg.Source.Target,
		Results: s.cfg.Source.Results, Provider: m.Provider, Model: m.Config.Model,
		Options: assemble.Options{Privacy: m.Level}, Sink: sink})
	if err != nil {
		if ctx.Err() == nil {
			failed(err)
		}
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if out.Status == agent.Done {
		s.remember(chat, answer{messageID: pair.Assistant.ID, question: pair.User.Content, out: out})
	}
	if s.cfg.Gate.Level() == privacy.Schema {
		out = written(out)
	}
	r := &reply{texts: []string{answerText(chat, out)}, conversation: chat, message: pair.Assistant.ID}
	r.failed = out.Status != agent.Done && out.Status != agent.NeedsInput
	return r, nil
}

// startAnswer adds question to conversation chat (a new one when empty)
// and claims its answer as runID.
func (s *Server) startAnswer(ctx context.Context, chat, question, runID string) (*store.Pair, *store.Run, error) {
	st := s.cfg.Store
	if chat == "" {
		c, err := st.CreateConversation(ctx, "", s.cfg.Label)
		if err != nil {
			return nil, nil, err
		}
		chat = c.ID
	}
	pair, err := st.Ask(ctx, chat, question)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil, fmt.Errorf("no conversation %q: leave conversation_id out to start a new one", chat)
		}
		return nil, nil, err
	}
	claim, err := st.Claim(ctx, pair.Assistant.ID, runID)
	if err != nil {
		return nil, nil, err
	}
	return pair, claim, nil
}

func (s *Server) remember(chat string, a answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.answers) >= maxAnswers {
		clear(s.answers)
	}
	s.answers[chat] = a
}

// answerText is what the client reads of an answer: its conversation, how
// it ended, the summary, the findings and the SQL behind each.
func answerText(chat string, out *agent.Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "conversation_id: %s\nstatus: %s\n", chat, out.Status)
	if out.Reason != "" {
		fmt.Fprintf(&b, "reason: %s\n", out.Reason)
	}
	if out.Question != nil {
		fmt.Fprintf(&b, "\nLoupe's agent asks: %s\n", out.Question.Text)
		if len(out.Question.Options) > 0 {
			fmt.Fprintf(&b, "options: %s\n", strings.Join(out.Question.Options, " | "))
		}
		b.WriteString("Answer with ask, passing this conversation_id.\n")
	}
	summary := out.Summary
	if summary == "" && len(out.Findings) == 0 {
		summary = out.Answer
	}
	if summary != "" {
		fmt.Fprintf(&b, "\nSummary: %s\n", summary)
	}
	sqlOf := map[string]string{}
	for _, e := range out.Evidence {
		sqlOf[e.Ref] = e.SQL
	}
	if len(out.Findings) > 0 {
		b.WriteString("\nFindings:\n")
	}
	for i, f := range out.Findings {
		fmt.Fprintf(&b, "%d. %s\n", i+1, f.Text)
		for _, ref := range f.Evidence {
			if sql := strings.TrimSpace(sqlOf[ref]); sql != "" {
				fmt.Fprintf(&b, "   [%s] SQL: %s\n", ref, oneLine(sql))
			}
		}
	}
	if len(out.Findings) == 0 && len(out.Evidence) > 0 {
		b.WriteString("\nQueries:\n")
		for _, e := range out.Evidence {
			if sql := strings.TrimSpace(e.SQL); sql != "" {
				fmt.Fprintf(&b, "   [%s] SQL: %s\n", e.Ref, oneLine(sql))
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// written is out as the schema level may send it: the answer as the
// model wrote it, with references ({{q1.total[0]}}) where the user reads
// values, and no findings (they are parsed from the filled-in answer).
func written(out *agent.Outcome) *agent.Outcome {
	w := *out
	w.Summary, w.Findings, w.Answer = "", nil, out.Written
	if w.Answer == "" {
		w.Answer = "(The answer holds values of the data, which the schema privacy level keeps from you; the user reads it in Loupe.)"
	}
	return &w
}

// progressSink records every event of the run and tells the client of its
// steps and tool calls (what they do, never their data).
type progressSink struct {
	rec    *session.Recorder
	notify func(msg string)
	once   sync.Once
}

var _ agent.Sink = (*progressSink)(nil)

func (p *progressSink) Emit(ev agent.Event) {
	if err := p.rec.Record(ev); err != nil {
		p.once.Do(func() { slog.Warn("the conversation could not be saved", "subsystem", "mcp", "err", err) })
	}
	switch ev.Type {
	case agent.RunStarted:
		p.notify("Loupe's agent started")
	case agent.StepStarted:
		p.notify(fmt.Sprintf("Step %d", ev.Step))
	case agent.ToolCalled:
		if ev.Call != nil {
			msg := ev.Call.Name
			if ev.Call.View != nil && ev.Call.View.Doing != "" {
				msg = ev.Call.View.Doing
			}
			p.notify(msg)
		}
	case agent.RunFinished:
		p.notify("Finished")
	}
}

// progress returns what sends a progress notification for req, counting
// up; nothing when the client gave no progress token.
func progress(ctx context.Context, req *mcp.CallToolRequest) func(string) {
	tok := req.Params.GetProgressToken()
	if tok == nil || req.Session == nil {
		return func(string) {}
	}
	var (
		mu sync.Mutex
		n  float64
	)
	return func(msg string) {
		mu.Lock()
		n++
		p := n
		mu.Unlock()
		// A notification that cannot be sent does not fail the run.
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: p, Message: msg})
	}
}

// strictDecode decodes raw (empty is {}) into v, refusing unknown fields.
func strictDecode(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
