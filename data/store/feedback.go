package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Verdicts on an answer.
const (
	Up   = "up"   // the answer is right: its question and SQL are verified
	Down = "down" // the answer is wrong; the note says why
)

// Feedback is the user's verdict on one answer.
type Feedback struct {
	MessageID      string    `json:"message_id"`
	RunID          string    `json:"run_id,omitempty"` // the run that wrote the answer (FeedbackOf)
	ConversationID string    `json:"conversation_id"`
	Verdict        string    `json:"verdict"` // Up or Down
	Note           string    `json:"note,omitempty"`
	At             time.Time `json:"at"`
}

// SetFeedback records the verdict on the answer messageID, replacing an
// earlier one. Only a finished answer takes a verdict.
func (s *Store) SetFeedback(ctx context.Context, messageID, verdict, note string) (*Feedback, error) {
	if verdict != Up && verdict != Down {
		return nil, fmt.Errorf("store: the verdict must be %q or %q, not %q", Up, Down, verdict)
	}
	m, err := readMessage(ctx, s.db, messageID)
	if err != nil {
		return nil, err
	}
	if m.Role != Assistant || m.Status != Complete {
		return nil, fmt.Errorf("store: message %s is not a finished answer: only finished answers take a verdict", messageID)
	}
	now := s.stamp()
	f := &Feedback{MessageID: messageID, RunID: m.RunID, ConversationID: m.ConversationID, Verdict: verdict, Note: strings.TrimSpace(note), At: fromStamp(now)}
	_, err = s.db.ExecContext(ctx, `INSERT INTO feedback (message_id, conversation_id, verdict, note, given_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (message_id) DO UPDATE SET verdict = excluded.verdict, note = excluded.note, given_at = excluded.given_at`,
		f.MessageID, f.ConversationID, f.Verdict, f.Note, now)
	if err != nil {
		return nil, fmt.Errorf("store: record the verdict on %s: %w", messageID, err)
	}
	return f, nil
}

// FeedbackOf is the verdicts given in a conversation, by answer.
func (s *Store) FeedbackOf(ctx context.Context, conversationID string) (map[string]Feedback, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT f.message_id, COALESCE(m.run_id, ''), f.conversation_id, f.verdict, f.note, f.given_at
		FROM feedback f JOIN messages m ON m.id = f.message_id WHERE f.conversation_id = ?`, conversationID)
	if err != nil {
		return nil, fmt.Errorf("store: read the verdicts of %s: %w", conversationID, err)
	}
	defer rows.Close()
	out := map[string]Feedback{}
	for rows.Next() {
		var f Feedback
		var at int64
		if err := rows.Scan(&f.MessageID, &f.RunID, &f.ConversationID, &f.Verdict, &f.Note, &at); err != nil {
			return nil, fmt.Errorf("store: read the verdicts of %s: %w", conversationID, err)
		}
		f.At = fromStamp(at)
		out[f.MessageID] = f
	}
	return out, rows.Err()
}
