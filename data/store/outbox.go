package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// MaxOutboxBytes bounds the request bodies kept per conversation (and for
// the requests of no conversation). Past it the oldest bodies are dropped,
// newest kept; a dropped request keeps its time, address and size and is
// marked Dropped.
const MaxOutboxBytes = 32 << 20

// MaxLooseSent bounds how many requests of no conversation (status checks,
// model listing, table-name embeddings) are kept; the oldest go first.
const MaxLooseSent = 1000

// Sent is one request kept in the outbox: a request to a model server on
// another machine, its body byte for byte. ConversationID and MessageID
// are empty for a request made for no conversation.
type Sent struct {
	ID             int64     `json:"id"`
	ConversationID string    `json:"conversation_id,omitempty"`
	MessageID      string    `json:"message_id,omitempty"` // the answer it was made for
	At             time.Time `json:"at"`
	Method         string    `json:"method"`
	URL            string    `json:"url"`
	Level          string    `json:"level"` // the privacy level in force
	Size           int       `json:"size"`  // of the body, in bytes
	Body           []byte    `json:"-"`
	// Dropped says the body was let go to keep the conversation's outbox
	// within MaxOutboxBytes.
	Dropped bool `json:"dropped,omitempty"`
}

// AnswerPrivacy is what an answer's model saw: the privacy level in force
// and the server it was sent to, local or not.
type AnswerPrivacy struct {
	MessageID string `json:"message_id"`
	Level     string `json:"level"`
	ModelURL  string `json:"model_url"`
	Local     bool   `json:"local"`
}

// KeepSent stores e (Size is set from its body) and drops the oldest
// bodies of its conversation past MaxOutboxBytes, in one transaction.
func (s *Store) KeepSent(ctx context.Context, e Sent) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO outbox (conversation_id, message_id, sent_at, method, url, level, size, body)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, nullable(e.ConversationID), nullable(e.MessageID), e.At.UnixMilli(),
			e.Method, e.URL, e.Level, len(e.Body), e.Body)
		if err != nil {
			return fmt.Errorf("store: keep a request to %s: %w", e.URL, err)
		}
		return s.boundOutbox(ctx, tx, e.ConversationID)
	})
}

// boundOutbox drops the oldest bodies of conversation (empty: of no
// conversation) past the store's byte bound, and, of no conversation, the
// oldest requests past MaxLooseSent.
func (s *Store) boundOutbox(ctx context.Context, tx *sql.Tx, conversation string) error {
	_, err := tx.ExecContext(ctx, `UPDATE outbox SET body = NULL WHERE id IN (
		SELECT id FROM (SELECT id, SUM(size) OVER (ORDER BY id DESC) AS newer
			FROM outbox WHERE conversation_id IS ? AND body IS NOT NULL) WHERE newer > ?)`,
		nullable(conversation), s.outboxBytes())
	if err != nil {
		return fmt.Errorf("store: bound the outbox: %w", err)
	}
	if conversation != "" {
		return nil
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM outbox WHERE conversation_id IS NULL AND id NOT IN (
		SELECT id FROM outbox WHERE conversation_id IS NULL ORDER BY id DESC LIMIT ?)`, MaxLooseSent)
	if err != nil {
		return fmt.Errorf("store: bound the outbox: %w", err)
	}
	return nil
}

func (s *Store) outboxBytes() int {
	if s.maxOutbox > 0 {
		return s.maxOutbox
	}
	return MaxOutboxBytes
}

// SetAnswerPrivacy records the level in force and the model server of an
// answer (again for a retry: the last one stands).
func (s *Store) SetAnswerPrivacy(ctx context.Context, a AnswerPrivacy) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO outbox_answers (message_id, level, model_url, local) VALUES (?, ?, ?, ?)
		ON CONFLICT (message_id) DO UPDATE SET level = excluded.level, model_url = excluded.model_url, local = excluded.local`,
		a.MessageID, a.Level, a.ModelURL, a.Local)
	if err != nil {
		return fmt.Errorf("store: record the privacy of %s: %w", a.MessageID, err)
	}
	return nil
}

// AnswerPrivacyOf returns what SetAnswerPrivacy recorded for the answer
// messageID; ok is false for an answer with no record (asked before the
// outbox existed).
func (s *Store) AnswerPrivacyOf(ctx context.Context, messageID string) (a AnswerPrivacy, ok bool, err error) {
	a.MessageID = messageID
	err = s.db.QueryRowContext(ctx, `SELECT level, model_url, local FROM outbox_answers WHERE message_id = ?`, messageID).
		Scan(&a.Level, &a.ModelURL, &a.Local)
	if errors.Is(err, sql.ErrNoRows) {
		return a, false, nil
	}
	if err != nil {
		return a, false, fmt.Errorf("store: read the privacy of %s: %w", messageID, err)
	}
	return a, true, nil
}

// SentFor lists the requests made for the answer messageID, oldest first,
// with their bodies.
func (s *Store) SentFor(ctx context.Context, messageID string) ([]Sent, error) {
	return s.sentWhere(ctx, `message_id = ?`, messageID)
}

// SentLoose lists the requests made for no conversation, oldest first.
func (s *Store) SentLoose(ctx context.Context) ([]Sent, error) {
	return s.sentWhere(ctx, `conversation_id IS NULL`)
}

func (s *Store) sentWhere(ctx context.Context, where string, args ...any) ([]Sent, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, COALESCE(conversation_id, ''), COALESCE(message_id, ''), sent_at,
		method, url, level, size, body FROM outbox WHERE `+where+` ORDER BY id`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: read the outbox: %w", err)
	}
	defer rows.Close()
	var out []Sent
	for rows.Next() {
		var e Sent
		var at int64
		if err := rows.Scan(&e.ID, &e.ConversationID, &e.MessageID, &at, &e.Method, &e.URL, &e.Level, &e.Size, &e.Body); err != nil {
			return nil, fmt.Errorf("store: read the outbox: %w", err)
		}
		e.At, e.Dropped = fromStamp(at), e.Body == nil && e.Size > 0
		out = append(out, e)
	}
	return out, rows.Err()
}

// nullable stores an empty string as NULL.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
