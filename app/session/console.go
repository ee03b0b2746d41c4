package session

import (
	"context"
	"sync"
)

// Console is the SQL console's running query: one at a time, so that
// Stop knows what to stop and a new Start replaces the last (RunSQL).
type Console struct {
	mu     sync.Mutex
	seq    uint64
	cancel context.CancelFunc
}

// Start cancels the query running (a new Run supersedes it) and returns
// the context of the next one and the function to call when it ends.
func (q *Console) Start(parent context.Context) (context.Context, func()) {
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

// Stop cancels the running query and reports whether there was one.
func (q *Console) Stop() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.cancel == nil {
		return false
	}
	q.cancel()
	q.cancel = nil
	return true
}
