package session

import (
	"context"
	"errors"

	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/store"
)

// SentOf is what the answer of run runID sent to its model server: the
// privacy level in force and each request, body and all. An unknown run
// is CodeNotFound.
func (s *Session) SentOf(ctx context.Context, runID string) (*assemble.AnswerSent, error) {
	st, err := s.Chats.Store()
	if err != nil {
		return nil, err
	}
	msg, err := st.MessageByRun(ctx, runID)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, NewError(CodeNotFound, "No answer of run "+runID+".", "")
		}
		return nil, Wrap(err)
	}
	out, err := assemble.SentOf(ctx, st, msg.ID)
	if err != nil {
		return nil, Wrap(err)
	}
	return out, nil
}
