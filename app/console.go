package app

import (
	"context"
	"sync"
)

// consoleQuery is the SQL console's running query: one at a time, so that
// Stop (CancelSQL) knows what to stop and a new Run replaces the last.
type consoleQuery struct {
	mu     sync.Mutex
	seq    uint64
	cancel context.CancelFunc
}

// start cancels the query running (a new Run supersedes it) and returns
// the context of the next one and the function to call when it ends.
func (q *consoleQuery) start(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	q.mu.Lock()
	if q.cancel != nil {
		q.cancel()
	}
	q.seq++
	seq := q.seq
	q.cancel = cancel
	q.mu.Unlock()
	return ctx, func() {
		q.mu.Lock()
		if q.seq == seq {
			q.cancel = nil
		}
		q.mu.Unlock()
		cancel()
	}
}

// stop cancels the running query and reports whether there was one.
func (q *consoleQuery) stop() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.cancel == nil {
		return false
	}
	q.cancel()
	q.cancel = nil
	return true
}

// CancelSQL stops the SQL console's running query: DuckDB is interrupted
// and RunSQL returns an error with code "canceled". It reports whether a
// query was running.
func (a *App) CancelSQL() (bool, error) {
	return a.console.stop(), nil
}
