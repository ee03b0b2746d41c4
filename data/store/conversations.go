package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// DefaultName is a conversation's name until its first question names it.
const DefaultName = "New chat"

// Conversation is a conversation without its messages.
type Conversation struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Workspace string    `json:"workspace,omitempty"` // the workspace (or connection) it asks about
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	// Named is true once the user renamed it or its first question named it.
	Named bool `json:"named"`
	// Messages counts its messages.
	Messages int `json:"messages"`
}

// CreateConversation starts an empty conversation about workspace. An
// empty name means DefaultName until the first question names it.
func (s *Store) CreateConversation(ctx context.Context, name, workspace string) (*Conversation, error) {
	name = strings.TrimSpace(name)
	named := name != ""
	if !named {
		name = DefaultName
	}
	now := s.stamp()
	c := &Conversation{ID: NewID("chat"), Name: name, Workspace: workspace, Created: fromStamp(now), Updated: fromStamp(now), Named: named}
	_, err := s.db.ExecContext(ctx, `INSERT INTO conversations (id, name, workspace, named, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
		c.ID, c.Name, c.Workspace, named, now, now)
	if err != nil {
		return nil, fmt.Errorf("store: create a conversation: %w", err)
	}
	return c, nil
}

const conversationColumns = `c.id, c.name, c.workspace, c.named, c.created_at, c.updated_at,
	(SELECT count(*) FROM messages m WHERE m.conversation_id = c.id)`

func scanConversation(sc interface{ Scan(...any) error }) (Conversation, error) {
	var c Conversation
	var created, updated int64
	err := sc.Scan(&c.ID, &c.Name, &c.Workspace, &c.Named, &created, &updated, &c.Messages)
	c.Created, c.Updated = fromStamp(created), fromStamp(updated)
	return c, err
}

// Conversations lists the conversations, most recently updated first.
func (s *Store) Conversations(ctx context.Context) ([]Conversation, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+conversationColumns+` FROM conversations c ORDER BY c.updated_at DESC, c.id DESC`)
	if err != nil {
		return nil, fmt.Errorf("store: list conversations: %w", err)
	}
	defer rows.Close()
	out := []Conversation{}
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list conversations: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Conversation returns one conversation without its messages.
func (s *Store) Conversation(ctx context.Context, id string) (*Conversation, error) {
	c, err := scanConversation(s.db.QueryRowContext(ctx, `SELECT `+conversationColumns+` FROM conversations c WHERE c.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: no conversation %q", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("store: read conversation %s: %w", id, err)
	}
	return &c, nil
}

// Rename renames a conversation; its first question will not rename it.
func (s *Store) Rename(ctx context.Context, id, name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return fmt.Errorf("store: a conversation needs a name")
	}
	res, err := s.db.ExecContext(ctx, `UPDATE conversations SET name = ?, named = 1 WHERE id = ?`, name, id)
	return affected(res, err, "no conversation %q", id)
}

// MoveWorkspace makes every conversation about workspace from be about to
// instead (a renamed connection keeps its conversations), in one
// transaction: all of them or none. It returns how many moved; moving to
// the same workspace, or from one nothing is about, moves none. Their
// order (last update) is left as it was.
func (s *Store) MoveWorkspace(ctx context.Context, from, to string) (int64, error) {
	if from == to {
		return 0, nil
	}
	if strings.TrimSpace(to) == "" {
		return 0, fmt.Errorf("store: move conversations from %q: the new workspace is empty", from)
	}
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE conversations SET workspace = ? WHERE workspace = ?`, to, from)
		if err != nil {
			return fmt.Errorf("store: move conversations from %q to %q: %w", from, to, err)
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// Delete deletes a conversation with everything in it.
func (s *Store) Delete(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM conversations WHERE id = ?`, id)
	return affected(res, err, "no conversation %q", id)
}

// affected turns an update of no row into ErrNotFound.
func affected(res sql.Result, err error, format string, args ...any) error {
	if err != nil {
		return fmt.Errorf("store: "+format+": %w", append(args, err)...)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("%w: "+format, append([]any{ErrNotFound}, args...)...)
	}
	return nil
}
