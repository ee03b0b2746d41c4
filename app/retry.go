package app

import (
	"errors"
	"fmt"

	"github.com/loupeapp/loupe/data/store"
)

// Retry answers again the last question of a chat whose last answer did
// not finish: it was stopped, cut off by a crash (the store marks such an
// answer interrupted when it next opens), failed, or hit a limit. The new
// answer follows the old one, which stays as it was, and streams like
// Ask's; it sees the same history the first attempt saw. Like Ask it is
// refused with code "busy" while the chat has a run going; a chat whose
// last answer finished has nothing to retry (code "invalid").
func (a *App) Retry(chatID string) (*AskResult, error) {
	m, err := a.runModel()
	if err != nil {
		return nil, err
	}
	st, err := a.chatStore()
	if err != nil {
		return nil, err
	}
	// An answer left generating by a process that died since the store
	// opened (a crashed `loupe ask`) is interrupted, and so retryable.
	if _, err := st.Recover(a.life); err != nil {
		return nil, wrap(err)
	}
	last, err := a.lastAnswer(st, chatID)
	if err != nil {
		return nil, err
	}
	switch last.Status {
	case store.Interrupted, store.Failed:
	case store.Generating:
		return nil, storeError(store.ErrBusy, chatID)
	default:
		return nil, newError(CodeInvalid, "The last answer of this conversation finished: there is nothing to retry.",
			"Ask the question again, or ask a follow-up.")
	}
	pair, err := st.Retry(a.life, last.ID)
	if errors.Is(err, store.ErrNotRetryable) { // it changed since it was read: another process took it
		return nil, storeError(store.ErrBusy, chatID)
	}
	if err != nil {
		return nil, storeError(err, chatID)
	}
	return a.launch(st, pair, m)
}

// lastAnswer is the chat's last answer (without its tool calls).
func (a *App) lastAnswer(st *store.Store, chatID string) (*store.Message, error) {
	th, err := st.Messages(a.life, chatID)
	if err != nil {
		return nil, storeError(err, chatID)
	}
	for i := len(th.Messages) - 1; i >= 0; i-- {
		if m := th.Messages[i]; m.Role == store.Assistant {
			return &m, nil
		}
	}
	return nil, newError(CodeInvalid, fmt.Sprintf("The conversation %q has no answer to retry.", chatID), "Ask a question first.")
}
