package session

import (
	"context"
	"sync"
	"time"
)

// Background is the work a long-lived process runs beside its calls
// (opening the workspace, status checks, runs), within its lifetime, and
// waited for when it shuts down.
type Background struct {
	life context.Context
	mu   sync.Mutex
	work sync.WaitGroup
}

// NewBackground returns the background work of a process whose lifetime
// is life.
func NewBackground(life context.Context) *Background { return &Background{life: life} }

// Go runs fn in a goroutine with the lifetime context and reports whether
// it started: work started once the lifetime ended is not run.
func (b *Background) Go(fn func(ctx context.Context)) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.life.Err() != nil {
		return false
	}
	b.work.Add(1)
	go func() {
		defer b.work.Done()
		fn(b.life)
	}()
	return true
}

// Wait waits at most d for the work started to end, and reports whether
// it did.
func (b *Background) Wait(d time.Duration) bool {
	done := make(chan struct{})
	go func() { b.work.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}
