package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Run is a claimed answer that a run writes into as it goes. Each write is
// its own transaction, committed before it returns, so what was written
// survives the process being killed. Writes into an answer that is gone
// (its conversation was deleted) do nothing; Finish then reports
// ErrNotFound. A Run renews its lease in the
// background until Finish. Its methods may be called from any goroutine.
type Run struct {
	s              *Store
	MessageID      string
	ConversationID string
	RunID          string

	stop chan struct{}
	once sync.Once
}

// Claim starts answering the placeholder messageID as run runID. It is
// atomic: of two claims of the same message one wins and the other gets
// ErrClaimed, as does a claim of a message no longer generating.
func (s *Store) Claim(ctx context.Context, messageID, runID string) (*Run, error) {
	if runID == "" {
		return nil, fmt.Errorf("store: a claim needs a run id")
	}
	now := s.stamp()
	res, err := s.db.ExecContext(ctx, `UPDATE messages SET run_id = ?, owner = ?, lease_until = ?, updated_at = ?
		WHERE id = ? AND role = 'assistant' AND status = 'generating' AND run_id IS NULL`,
		runID, self.String(), now+leaseFor.Milliseconds(), now, messageID)
	if err != nil {
		return nil, fmt.Errorf("store: claim message %s: %w", messageID, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		m, err := readMessage(ctx, s.db, messageID)
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w (message %s is %s, run %q)", ErrClaimed, messageID, m.Status, m.RunID)
	}
	var convID string
	if err := s.db.QueryRowContext(ctx, `SELECT conversation_id FROM messages WHERE id = ?`, messageID).Scan(&convID); err != nil {
		return nil, fmt.Errorf("store: read message %s: %w", messageID, err)
	}
	r := &Run{s: s, MessageID: messageID, ConversationID: convID, RunID: runID, stop: make(chan struct{})}
	go r.renew()
	return r, nil
}

// renew extends the lease until the run finishes.
func (r *Run) renew() {
	t := time.NewTicker(leaseRenew)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			now := r.s.stamp()
			_, err := r.s.db.Exec(`UPDATE messages SET lease_until = ? WHERE id = ? AND run_id = ? AND status = 'generating'`,
				now+leaseFor.Milliseconds(), r.MessageID, r.RunID)
			if err != nil {
				r.s.log.Warn("renew the lease of an answer", "message", r.MessageID, "err", err)
			}
		}
	}
}

// exec runs one statement on the run's message.
func (r *Run) exec(ctx context.Context, what, q string, args ...any) error {
	if _, err := r.s.db.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("store: %s of %s: %w", what, r.MessageID, err)
	}
	return nil
}

// Text records the answer's visible text so far (the whole of it).
func (r *Run) Text(ctx context.Context, content string) error {
	now := r.s.stamp()
	return r.exec(ctx, "save the text", `UPDATE messages SET content = ?, updated_at = ?, lease_until = ? WHERE id = ? AND run_id = ?`,
		content, now, now+leaseFor.Milliseconds(), r.MessageID, r.RunID)
}

// Usage records the tokens used so far.
func (r *Run) Usage(ctx context.Context, prompt, completion int) error {
	return r.exec(ctx, "save the usage", `UPDATE messages SET prompt_tokens = ?, completion_tokens = ? WHERE id = ? AND run_id = ?`,
		prompt, completion, r.MessageID, r.RunID)
}

// Call records a finished tool call (replacing one with the same Seq),
// its arguments and result capped at MaxToolText.
func (r *Run) Call(ctx context.Context, c ToolCall) error {
	return r.s.tx(ctx, func(tx *sql.Tx) error { return r.putCall(ctx, tx, c) })
}

func (r *Run) putCall(ctx context.Context, tx *sql.Tx, c ToolCall) error {
	if c.Seq <= 0 {
		return fmt.Errorf("store: tool call %s of %s has no seq", c.CallID, r.MessageID)
	}
	args := Cap(c.Arguments, MaxToolText)
	if args == "" {
		args = "{}"
	}
	_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO tool_calls (message_id, seq, call_id, step, name, arguments, result, ref, failed, skipped, duration_ms)
		SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM messages WHERE id = ? AND run_id = ?)`,
		r.MessageID, c.Seq, c.CallID, c.Step, c.Name, args, Cap(c.Result, MaxToolText), c.Ref, c.Failed, c.Skipped, c.DurationMS,
		r.MessageID, r.RunID)
	if err != nil {
		return fmt.Errorf("store: save tool call %d of %s: %w", c.Seq, r.MessageID, err)
	}
	return nil
}

// Chart records a chart the answer drew (replacing one with the same ref).
func (r *Run) Chart(ctx context.Context, c Chart) error {
	data := c.Data
	if len(data) == 0 {
		data = json.RawMessage("[]")
	}
	return r.exec(ctx, "save chart "+c.Ref, `INSERT OR REPLACE INTO charts (message_id, ref, call_id, title, mark, spec, sql, data, rows, created_at)
		SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM messages WHERE id = ? AND run_id = ?)`,
		r.MessageID, c.Ref, c.CallID, c.Title, c.Mark, string(c.Spec), c.SQL, string(data), c.Rows, r.s.stamp(), r.MessageID, r.RunID)
}

// Final is how an answer ended.
type Final struct {
	Status           Status // not Generating
	Content          string
	Error            string
	PromptTokens     int
	CompletionTokens int
	Steps            int
	DurationMS       float64
	Model, Provider  string
	Datasets         []string
	// ToolCalls, when not nil, replaces the tool calls recorded so far
	// (with the results as the model finally read them).
	ToolCalls []ToolCall
	Blob      Blob
}

// Finish records how the answer ended, in one transaction, and stops
// renewing its lease. It fails with ErrNotFound when the message is gone
// (its conversation was deleted meanwhile).
func (r *Run) Finish(ctx context.Context, f Final) error {
	r.once.Do(func() { close(r.stop) })
	if f.Status == Generating || f.Status == "" {
		return fmt.Errorf("store: finish %s with status %q", r.MessageID, f.Status)
	}
	datasets, err := json.Marshal(orEmpty(f.Datasets))
	if err != nil {
		return fmt.Errorf("store: encode datasets: %w", err)
	}
	return r.s.tx(ctx, func(tx *sql.Tx) error {
		now := r.s.stamp()
		res, err := tx.ExecContext(ctx, `UPDATE messages SET status = ?, content = ?, error = ?, prompt_tokens = ?, completion_tokens = ?,
			steps = ?, duration_ms = ?, model = ?, provider = ?, datasets = ?, lease_until = 0, updated_at = ?
			WHERE id = ? AND run_id = ? AND status IN ('generating', 'interrupted')`,
			f.Status, f.Content, f.Error, f.PromptTokens, f.CompletionTokens, f.Steps, f.DurationMS, f.Model, f.Provider,
			string(datasets), now, r.MessageID, r.RunID)
		if err := affected(res, err, "no answer %s of run %s in progress", r.MessageID, r.RunID); err != nil {
			return err
		}
		if f.ToolCalls != nil {
			if _, err := tx.ExecContext(ctx, `DELETE FROM tool_calls WHERE message_id = ?`, r.MessageID); err != nil {
				return fmt.Errorf("store: replace the tool calls of %s: %w", r.MessageID, err)
			}
			for _, c := range f.ToolCalls {
				if err := r.putCall(ctx, tx, c); err != nil {
					return err
				}
			}
		}
		if len(f.Blob.Trace) > 0 || len(f.Blob.Outcome) > 0 {
			_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO message_blobs (message_id, trace, outcome) VALUES (?, ?, ?)`,
				r.MessageID, f.Blob.Trace, f.Blob.Outcome)
			if err != nil {
				return fmt.Errorf("store: save the trace of %s: %w", r.MessageID, err)
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE conversations SET updated_at = ? WHERE id = ?`, now, r.ConversationID)
		if err != nil {
			return fmt.Errorf("store: update conversation %s: %w", r.ConversationID, err)
		}
		return nil
	})
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
