package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// ChartEdit is a chart of an answer as the user changed it by hand: the
// spec drawn instead of the one the tool call CallID made (Vega-Lite, data
// inlined). The chart the model drew is kept as it was; deleting the edit
// shows it again.
type ChartEdit struct {
	MessageID string          `json:"message_id"`
	CallID    string          `json:"call_id"`
	Title     string          `json:"title,omitempty"`
	Mark      string          `json:"mark,omitempty"`
	Spec      json.RawMessage `json:"spec"`
	Edited    time.Time       `json:"edited"`
}

// SaveChartEdit keeps e, replacing an earlier edit of the same chart. Only
// a finished answer's charts are edited; the caller has checked the spec.
func (s *Store) SaveChartEdit(ctx context.Context, e ChartEdit) (*ChartEdit, error) {
	m, err := readMessage(ctx, s.db, e.MessageID)
	if err != nil {
		return nil, err
	}
	if m.Role != Assistant || m.Status == Generating {
		return nil, fmt.Errorf("store: message %s is not a finished answer: only its charts are edited", e.MessageID)
	}
	if e.CallID == "" || !json.Valid(e.Spec) {
		return nil, fmt.Errorf("store: a chart edit needs the call that drew the chart and a JSON spec")
	}
	now := s.stamp()
	e.Edited = fromStamp(now)
	_, err = s.db.ExecContext(ctx, `INSERT INTO chart_edits (message_id, call_id, title, mark, spec, edited_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (message_id, call_id) DO UPDATE SET title = excluded.title, mark = excluded.mark, spec = excluded.spec, edited_at = excluded.edited_at`,
		e.MessageID, e.CallID, e.Title, e.Mark, string(e.Spec), now)
	if err != nil {
		return nil, fmt.Errorf("store: save the edit of chart %s of %s: %w", e.CallID, e.MessageID, err)
	}
	return &e, nil
}

// DeleteChartEdit forgets the edit of chart callID of messageID, if any:
// the answer shows the chart the model drew again.
func (s *Store) DeleteChartEdit(ctx context.Context, messageID, callID string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM chart_edits WHERE message_id = ? AND call_id = ?`, messageID, callID); err != nil {
		return fmt.Errorf("store: delete the edit of chart %s of %s: %w", callID, messageID, err)
	}
	return nil
}

// ChartEdits is the chart edits of a conversation's answers, by message id.
func (s *Store) ChartEdits(ctx context.Context, conversationID string) (map[string][]ChartEdit, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT e.message_id, e.call_id, e.title, e.mark, e.spec, e.edited_at
		FROM chart_edits e JOIN messages m ON m.id = e.message_id WHERE m.conversation_id = ? ORDER BY e.message_id, e.call_id`, conversationID)
	if err != nil {
		return nil, fmt.Errorf("store: read the chart edits of %s: %w", conversationID, err)
	}
	defer rows.Close()
	out := map[string][]ChartEdit{}
	for rows.Next() {
		var e ChartEdit
		var spec string
		var at int64
		if err := rows.Scan(&e.MessageID, &e.CallID, &e.Title, &e.Mark, &spec, &at); err != nil {
			return nil, fmt.Errorf("store: read the chart edits of %s: %w", conversationID, err)
		}
		e.Spec, e.Edited = json.RawMessage(spec), fromStamp(at)
		out[e.MessageID] = append(out[e.MessageID], e)
	}
	return out, rows.Err()
}
