package transport

import (
	"context"
	"sync/atomic"
	"time"
)

// Stall cancels a stream's context when no data arrives for a while, so a
// server that hangs mid-reply becomes a broken stream that can be retried.
type Stall struct {
	timer   *time.Timer
	cancel  context.CancelFunc
	d       time.Duration
	stalled atomic.Bool
}

// WatchStall returns a context that is canceled when Kick has not been
// called for d, and the Stall to kick. A zero d watches nothing. Call Stop
// when the stream ends.
func WatchStall(ctx context.Context, d time.Duration) (context.Context, *Stall) {
	s := &Stall{d: d}
	if d <= 0 {
		return ctx, s
	}
	ctx, s.cancel = context.WithCancel(ctx)
	s.timer = time.AfterFunc(d, func() {
		s.stalled.Store(true)
		s.cancel()
	})
	return ctx, s
}

// Kick says data arrived.
func (s *Stall) Kick() {
	if s.timer != nil {
		s.timer.Reset(s.d)
	}
}

// Stop ends the watch and releases its context.
func (s *Stall) Stop() {
	if s.timer != nil {
		s.timer.Stop()
		s.cancel()
	}
}

// Stalled reports whether the watch canceled the stream.
func (s *Stall) Stalled() bool { return s.stalled.Load() }

// Timeout is how long the stream may stay silent.
func (s *Stall) Timeout() time.Duration { return s.d }
