package app

import (
	"context"

	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/memory"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/workspace"
)

// AnswerFeedback is the user's verdict on an answer: "up" (right: its
// question and SQL are verified and offered to later questions) or
// "down" (wrong), the note saying why, and the queries it verified or
// withdrew.
type AnswerFeedback struct {
	Verdict string   `json:"verdict"`
	Note    string   `json:"note"`
	SQL     []string `json:"sql"`
}

// Feedback gives the verdict ("up" or "down", with an optional note) on
// the finished answer of runID in chatID, replacing an earlier one. Up
// verifies the question and the SQL behind the answer's findings in the
// workspace's query memory; down withdraws them.
func (a *App) Feedback(chatID, runID, verdict, note string) (*AnswerFeedback, error) {
	msg, _, err := a.s.Chats.Turn(a.life, chatID, runID)
	if err != nil {
		return nil, err
	}
	st, err := a.s.Chats.Store()
	if err != nil {
		return nil, err
	}
	c, err := st.Conversation(a.life, chatID)
	if err != nil {
		return nil, storeError(err, chatID)
	}
	var mem *memory.Store
	if remote.LabelName(c.Workspace) == "" {
		if err := a.s.Local.Use(func(context.Context, *workspace.Workspace) error {
			if ret := a.s.Local.Retrieval(); ret != nil {
				mem = ret.Memory
			}
			return nil
		}); err != nil {
			return nil, wrap(err)
		}
	}
	fb, err := session.GiveFeedback(a.life, session.FeedbackRequest{Store: st, Memory: mem, ChatID: chatID,
		MessageID: msg.ID, Verdict: verdict, Note: note})
	if err != nil {
		return nil, wrap(err)
	}
	return &AnswerFeedback{Verdict: fb.Verdict, Note: fb.Note, SQL: append([]string{}, fb.SQL...)}, nil
}

// verdicts are the verdicts given in conversation chatID, by run.
func (a *App) verdicts(chatID string) (map[string]*AnswerFeedback, error) {
	st, err := a.s.Chats.Store()
	if err != nil {
		return nil, err
	}
	fs, err := st.FeedbackOf(a.life, chatID)
	if err != nil {
		return nil, wrap(err)
	}
	out := make(map[string]*AnswerFeedback, len(fs))
	for _, f := range fs {
		if f.RunID != "" {
			out[f.RunID] = &AnswerFeedback{Verdict: f.Verdict, Note: f.Note, SQL: []string{}}
		}
	}
	return out, nil
}
