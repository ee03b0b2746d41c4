package session

import (
	"context"

	"github.com/loupeapp/loupe/data/memory"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/data/workspace"
)

// FeedbackOnRun gives the verdict ("up" or "down", with an optional note)
// on the finished answer of runID in chatID, replacing an earlier one
// (GiveFeedback). A conversation about the workspace finds the query
// memory of the workspace's retrieval (none while it has none); one about
// a connection has no query memory.
func (s *Session) FeedbackOnRun(ctx context.Context, chatID, runID, verdict, note string) (*Feedback, error) {
	msg, _, err := s.Chats.Turn(ctx, chatID, runID)
	if err != nil {
		return nil, err
	}
	st, err := s.Chats.Store()
	if err != nil {
		return nil, err
	}
	c, err := st.Conversation(ctx, chatID)
	if err != nil {
		return nil, StoreError(err, chatID)
	}
	var mem *memory.Store
	if remote.LabelName(c.Workspace) == "" {
		if err := s.Local.Use(func(context.Context, *workspace.Workspace) error {
			if ret := s.Local.Retrieval(); ret != nil {
				mem = ret.Memory
			}
			return nil
		}); err != nil {
			return nil, Wrap(err)
		}
	}
	fb, err := GiveFeedback(ctx, FeedbackRequest{Store: st, Memory: mem, ChatID: chatID,
		MessageID: msg.ID, Verdict: verdict, Note: note})
	return fb, Wrap(err)
}

// Verdicts are the verdicts given in conversation chatID, by run (those
// given on answers without a run left out).
func (s *Session) Verdicts(ctx context.Context, chatID string) (map[string]store.Feedback, error) {
	st, err := s.Chats.Store()
	if err != nil {
		return nil, err
	}
	fs, err := st.FeedbackOf(ctx, chatID)
	if err != nil {
		return nil, Wrap(err)
	}
	out := make(map[string]store.Feedback, len(fs))
	for _, f := range fs {
		if f.RunID != "" {
			out[f.RunID] = f
		}
	}
	return out, nil
}
