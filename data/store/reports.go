package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Report is a report written from an answer: its markdown as exported, the
// caller's encoding of the whole report (to export it again with its
// charts; opaque to the store), and where it was exported.
type Report struct {
	ID             string    `json:"id"`
	ConversationID string    `json:"conversation_id"`
	MessageID      string    `json:"message_id"` // the answer it was written from
	Title          string    `json:"title"`
	Markdown       string    `json:"markdown"`
	Source         []byte    `json:"-"`
	Created        time.Time `json:"created"`
	Exports        []Export  `json:"exports,omitempty"`
}

// Export is one export of a report.
type Export struct {
	Format string    `json:"format"` // "md" (a folder), "html", "pdf" or "xlsx"
	Path   string    `json:"path"`
	At     time.Time `json:"at"`
}

// SaveReport stores a report written from the answer messageID and returns
// it with its id.
func (s *Store) SaveReport(ctx context.Context, messageID, title, markdown string, source []byte) (*Report, error) {
	m, err := readMessage(ctx, s.db, messageID)
	if err != nil {
		return nil, err
	}
	now := s.stamp()
	r := &Report{ID: NewID("report"), ConversationID: m.ConversationID, MessageID: messageID, Title: title,
		Markdown: markdown, Source: source, Created: fromStamp(now)}
	_, err = s.db.ExecContext(ctx, `INSERT INTO reports (id, conversation_id, message_id, title, markdown, source, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, r.ID, r.ConversationID, r.MessageID, r.Title, r.Markdown, r.Source, now)
	if err != nil {
		return nil, fmt.Errorf("store: save the report of %s: %w", messageID, err)
	}
	return r, nil
}

// Reports lists a conversation's reports, newest first, with their exports.
func (s *Store) Reports(ctx context.Context, conversationID string) ([]Report, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, conversation_id, message_id, title, markdown, source, created_at
		FROM reports WHERE conversation_id = ? ORDER BY created_at DESC, rowid DESC`, conversationID)
	if err != nil {
		return nil, fmt.Errorf("store: list the reports of %s: %w", conversationID, err)
	}
	defer rows.Close()
	var out []Report
	idx := map[string]int{}
	for rows.Next() {
		var r Report
		var created int64
		if err := rows.Scan(&r.ID, &r.ConversationID, &r.MessageID, &r.Title, &r.Markdown, &r.Source, &created); err != nil {
			return nil, fmt.Errorf("store: list the reports of %s: %w", conversationID, err)
		}
		r.Created = fromStamp(created)
		idx[r.ID] = len(out)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, s.exports(ctx, out, idx, conversationID)
}

func (s *Store) exports(ctx context.Context, out []Report, idx map[string]int, conversationID string) error {
	rows, err := s.db.QueryContext(ctx, `SELECT e.report_id, e.format, e.path, e.exported_at FROM report_exports e
		JOIN reports r ON r.id = e.report_id WHERE r.conversation_id = ? ORDER BY e.exported_at, e.rowid`, conversationID)
	if err != nil {
		return fmt.Errorf("store: list exports: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var e Export
		var at int64
		if err := rows.Scan(&id, &e.Format, &e.Path, &at); err != nil {
			return fmt.Errorf("store: list exports: %w", err)
		}
		e.At = fromStamp(at)
		if i, ok := idx[id]; ok {
			out[i].Exports = append(out[i].Exports, e)
		}
	}
	return rows.Err()
}

// RecordExport adds an export to a report's history.
func (s *Store) RecordExport(ctx context.Context, reportID, format, path string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM reports WHERE id = ?`, reportID).Scan(&n); err != nil {
			return fmt.Errorf("store: find report %s: %w", reportID, err)
		}
		if n == 0 {
			return fmt.Errorf("%w: no report %q", ErrNotFound, reportID)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO report_exports (report_id, format, path, exported_at) VALUES (?, ?, ?, ?)`,
			reportID, format, path, s.stamp())
		if err != nil {
			return fmt.Errorf("store: record the export of %s: %w", reportID, err)
		}
		return nil
	})
}
