package session

import (
	"context"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/agent/report"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/tools"
)

// RunReport asks for a report written from a conversation's answers and
// kept with the answer of RunID. Turns picks the questions it covers
// (numbers from 1, in the order asked); empty covers every question with
// a finished answer.
type RunReport struct {
	ChatID, RunID string
	Turns         []int
	// OpenModel opens the model that writes, once the run is known to be
	// finished.
	OpenModel func() (*config.Model, error)
	// OnDelta gets the report's text as the model writes it, in pieces
	// merged over at most BatchInterval; OnReset says the model's stream
	// restarted, so the text so far is to be discarded.
	OnDelta func(text string)
	OnReset func()
}

// WriteRunReport writes the report r asks for (stage two, one model call
// without tools, through the privacy guard), registered under
// ReportKey(r.RunID) so that Runs.Cancel stops it, and returns it with the
// conversation store. The answer of r.RunID must be finished (CodeBusy
// while it runs, CodeInvalid when it did not end as done); a second
// report of the same run at once is CodeBusy. A report written but not
// kept in the store is returned and logged.
func (s *Session) WriteRunReport(ctx context.Context, r RunReport) (*StoredReport, *store.Store, error) {
	msg, t, err := s.Chats.Turn(ctx, r.ChatID, r.RunID)
	if err != nil {
		return nil, nil, err
	}
	out := t.Outcome
	if out == nil {
		return nil, nil, NewError(CodeBusy, "The run is still going.", "Wait for the answer, then write the report.")
	}
	if out.Status != agent.Done {
		return nil, nil, NewError(CodeInvalid, "Only a finished answer can become a report.",
			"This run ended as "+string(out.Status)+"; ask again, then write the report.")
	}
	m, err := r.OpenModel()
	if err != nil {
		return nil, nil, err
	}
	st, err := s.Chats.Store()
	if err != nil {
		return nil, nil, err
	}
	// The report stage's requests are kept with the answer it writes up;
	// the conversation's context keeps the run's placeholders.
	ctx = provider.WithOutbox(tools.WithChat(ctx, r.ChatID), assemble.Outbox{Store: st, ConversationID: r.ChatID, MessageID: msg.ID, Level: m.Level})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p, release, err := s.GuardReport(ctx, r.ChatID, m)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	if !s.Runs.Add(ReportKey(r.RunID), cancel) {
		return nil, nil, NewError(CodeBusy, "This report is already being written.", "Wait for it, or press Stop.")
	}
	defer s.Runs.Remove(ReportKey(r.RunID))

	text := NewTextThrottle(BatchInterval, r.OnDelta)
	written, err := WriteConversationReport(ctx, ConversationReportRequest{Store: st, ChatID: r.ChatID, Turns: r.Turns,
		MessageID: msg.ID, Provider: p, Model: m.Config.Model, Level: m.Level, Stream: report.Options{
			OnDelta: text.Add,
			OnReset: func() {
				text.Flush()
				r.OnReset()
			},
		}})
	text.Flush()
	if written == nil {
		return nil, nil, Wrap(err)
	}
	if err != nil { // the report is in the user's hands: say it was not kept in the log
		s.Log.Error("store a report", "run", r.RunID, "err", err)
	}
	return written, st, nil
}

// ReportOfTurn is the report last written from the answer of runID in
// conversation chatID (nil when none was written), read from the store,
// so that a conversation reopened after a restart shows its report.
func (s *Session) ReportOfTurn(ctx context.Context, chatID, runID string) (*StoredReport, *store.Store, error) {
	st, err := s.Chats.Store()
	if err != nil {
		return nil, nil, err
	}
	if _, _, err := s.Chats.Turn(ctx, chatID, runID); err != nil {
		return nil, nil, err
	}
	r, err := ReportOfRun(ctx, st, runID)
	return r, st, Wrap(err)
}
