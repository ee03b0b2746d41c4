package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// An answer being generated is held by its process (owner) under a lease
// the run renews. It is stale — left by a crash — when its process is gone,
// or when the lease ran out (a process id the OS reused for another
// program renews nothing).
const (
	leaseFor   = 2 * time.Minute
	leaseRenew = 20 * time.Second
)

// interruptedReason is the error of an answer whose process died.
const interruptedReason = "Loupe stopped before this answer finished (it was closed or crashed). Retry to answer the question again."

// owner names a process: its id and a random token, so that a later
// process that gets the same id is not mistaken for it.
type owner struct {
	pid   int
	token string
}

func (o owner) String() string { return strconv.Itoa(o.pid) + "/" + o.token }

func parseOwner(s string) (owner, bool) {
	pid, token, ok := strings.Cut(s, "/")
	n, err := strconv.Atoi(pid)
	if !ok || err != nil || token == "" {
		return owner{}, false
	}
	return owner{pid: n, token: token}, true
}

// self is this process.
var self = func() owner {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return owner{pid: os.Getpid(), token: hex.EncodeToString(b[:])}
}()

// held is a message being generated, as Recover and Ask inspect it.
type held struct {
	id    string
	owner string
	lease int64
}

// stale reports whether the process generating the answer is gone.
func (h held) stale(now int64) bool {
	o, ok := parseOwner(h.owner)
	switch {
	case !ok:
		return true
	case o.token == self.token: // this process: alive while it renews
		return now > h.lease
	case !processAlive(o.pid):
		return true
	}
	return now > h.lease
}

func generating(ctx context.Context, q queryer, and string, args ...any) ([]held, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, owner, lease_until FROM messages WHERE status = 'generating' `+and, args...)
	if err != nil {
		return nil, fmt.Errorf("store: find answers in progress: %w", err)
	}
	defer rows.Close()
	var out []held
	for rows.Next() {
		var h held
		if err := rows.Scan(&h.id, &h.owner, &h.lease); err != nil {
			return nil, fmt.Errorf("store: find answers in progress: %w", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// interrupt marks h interrupted, keeping its partial content and finished
// tool calls, unless it changed hands since it was read.
func interrupt(ctx context.Context, tx *sql.Tx, h held, now int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE messages SET status = 'interrupted', lease_until = 0, updated_at = ?,
		error = CASE WHEN error = '' THEN ? ELSE error END
		WHERE id = ? AND status = 'generating' AND owner = ? AND lease_until = ?`,
		now, interruptedReason, h.id, h.owner, h.lease)
	if err != nil {
		return fmt.Errorf("store: mark %s interrupted: %w", h.id, err)
	}
	return nil
}

// Recover marks every answer left generating by a process that is gone as
// interrupted, with its partial content and finished tool calls kept, and
// returns their ids. Answers of live processes (this one included) are not
// touched. Open calls it.
func (s *Store) Recover(ctx context.Context) ([]string, error) {
	gens, err := generating(ctx, s.db, "")
	if err != nil || len(gens) == 0 {
		return nil, err
	}
	now := s.stamp()
	var ids []string
	err = s.tx(ctx, func(tx *sql.Tx) error {
		for _, g := range gens {
			if !g.stale(now) {
				continue
			}
			if err := interrupt(ctx, tx, g, now); err != nil {
				return err
			}
			ids = append(ids, g.id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(ids) > 0 {
		s.log.Info("marked answers of a stopped process interrupted", "messages", ids)
	}
	return ids, nil
}
