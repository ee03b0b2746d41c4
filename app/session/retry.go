package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/loupeapp/loupe/data/store"
)

// RetryLast asks again the last question of conversation chatID, whose
// last answer did not finish: it was stopped, cut off by a crash (an
// answer left generating by a process that died is marked interrupted
// first), or failed. The new answer follows the old one, which stays as
// it was. Errors: store.ErrNotFound for an unknown conversation and
// store.ErrBusy while an answer is being written (wrapped; see
// StoreError); CodeInvalid when there is nothing to retry.
func RetryLast(ctx context.Context, st *store.Store, chatID string) (*store.Pair, error) {
	if _, err := st.Recover(ctx); err != nil {
		return nil, fmt.Errorf("mark the answers of dead processes interrupted: %w", err)
	}
	th, err := st.Messages(ctx, chatID)
	if err != nil {
		return nil, fmt.Errorf("read conversation %s: %w", chatID, err)
	}
	var last *store.Message
	for i := len(th.Messages) - 1; i >= 0 && last == nil; i-- {
		if m := th.Messages[i]; m.Role == store.Assistant {
			last = &m
		}
	}
	if last == nil {
		return nil, NewError(CodeInvalid, fmt.Sprintf("The conversation %q has no answer to retry.", chatID), "Ask a question first.")
	}
	switch last.Status {
	case store.Interrupted, store.Failed:
	case store.Generating:
		return nil, fmt.Errorf("retry in %s: %w", chatID, store.ErrBusy)
	default:
		return nil, NewError(CodeInvalid, "The last answer of this conversation finished: there is nothing to retry.",
			"Ask the question again, or ask a follow-up.")
	}
	pair, err := st.Retry(ctx, last.ID)
	if errors.Is(err, store.ErrNotRetryable) { // it changed since it was read: another process took it
		return nil, fmt.Errorf("retry in %s: %w", chatID, store.ErrBusy)
	}
	return pair, err
}
