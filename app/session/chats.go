package session

import (
	"context"
	"strings"

	"github.com/loupeapp/loupe/data/store"
)

// List returns the conversations, most recently updated first.
func (c *Conversations) List(ctx context.Context) ([]store.Conversation, error) {
	st, err := c.Store()
	if err != nil {
		return nil, err
	}
	list, err := st.Conversations(ctx)
	return list, Wrap(err)
}

// NewChat starts an empty conversation about the workspace.
func (s *Session) NewChat(ctx context.Context) (*store.Conversation, error) {
	st, err := s.Chats.Store()
	if err != nil {
		return nil, err
	}
	dir, _ := s.Local.Dir() // Store resolved it
	c, err := st.CreateConversation(ctx, "", dir)
	return c, Wrap(err)
}

// Rename renames conversation id to name (trimmed; empty is CodeInvalid).
func (c *Conversations) Rename(ctx context.Context, id, name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return NewError(CodeInvalid, "A conversation needs a name.", "Type a few words.")
	}
	st, err := c.Store()
	if err != nil {
		return err
	}
	if err := st.Rename(ctx, id, name); err != nil {
		return StoreError(err, id)
	}
	return nil
}

// Pose stores question in conversation chatID with the empty answer a
// run is to fill (store.Ask), and returns the pair and the store.
func (c *Conversations) Pose(ctx context.Context, chatID, question string) (*store.Store, *store.Pair, error) {
	st, err := c.Store()
	if err != nil {
		return nil, nil, err
	}
	pair, err := st.Ask(ctx, chatID, question)
	if err != nil {
		return nil, nil, StoreError(err, chatID)
	}
	return st, pair, nil
}

// Repose is Pose for answering again the last question of chatID, whose
// last answer did not finish (RetryLast).
func (c *Conversations) Repose(ctx context.Context, chatID string) (*store.Store, *store.Pair, error) {
	st, err := c.Store()
	if err != nil {
		return nil, nil, err
	}
	pair, err := RetryLast(ctx, st, chatID)
	if err != nil {
		return nil, nil, StoreError(err, chatID)
	}
	return st, pair, nil
}
