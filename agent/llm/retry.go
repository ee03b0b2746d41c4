package llm

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// DefaultRetries is how many times a transient failure is retried when a
// RetryPolicy leaves Retries at zero.
const DefaultRetries = 3

// RetryPolicy bounds how a Provider retries transient failures (see
// Error.Transient). The zero value is a sensible policy: 3 retries,
// exponential backoff from 250 ms up to 8 s with jitter, Retry-After honoured
// up to 30 s.
type RetryPolicy struct {
	// Retries is how many times a failed attempt is tried again: 0 means
	// DefaultRetries, a negative value means never.
	Retries int
	// Base is the first backoff (default 250 ms); each retry doubles it, up
	// to Max (default 8 s). The wait is jittered to between half and all of
	// that.
	Base, Max time.Duration
	// MaxRetryAfter caps the wait a server may ask for with Retry-After
	// (default 30 s). A server asking for longer is not waited for: its
	// error (with RetryAfter set) is returned at once so the caller can say
	// when to try again.
	MaxRetryAfter time.Duration
	// OnRetry, when set, is told about each retry before its wait (for
	// logging); attempt counts from 1.
	OnRetry func(attempt int, wait time.Duration, err error)
}

func (p RetryPolicy) retries() int {
	switch {
	case p.Retries < 0:
		return 0
	case p.Retries == 0:
		return DefaultRetries
	}
	return p.Retries
}

// Backoff is the jittered wait before retry number attempt (from 1), not
// counting any Retry-After.
func (p RetryPolicy) Backoff(attempt int) time.Duration {
	base, max := p.Base, p.Max
	if base <= 0 {
		base = 250 * time.Millisecond
	}
	if max <= 0 {
		max = 8 * time.Second
	}
	d := base
	for i := 1; i < attempt && d < max; i++ {
		d *= 2
	}
	d = min(d, max)
	half := d / 2
	return half + rand.N(d-half+1)
}

func (p RetryPolicy) maxRetryAfter() time.Duration {
	if p.MaxRetryAfter <= 0 {
		return 30 * time.Second
	}
	return p.MaxRetryAfter
}

// Retry runs attempt until it succeeds, fails with an error that is not a
// transient *Error, has been retried p's bounded number of times, or ctx
// ends. A transient *Error with RetryAfter set waits that long instead of
// the backoff. When ctx ends — during an attempt or a wait — Retry returns
// ctx.Err() at once; otherwise it returns the last attempt's error as is.
func Retry(ctx context.Context, p RetryPolicy, attempt func(ctx context.Context) error) error {
	for n := 0; ; n++ {
		err := attempt(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var e *Error
		if !errors.As(err, &e) || !e.Transient() || n >= p.retries() {
			return err
		}
		wait := p.Backoff(n + 1)
		if e.RetryAfter > 0 {
			if e.RetryAfter > p.maxRetryAfter() {
				return err
			}
			wait = e.RetryAfter
		}
		if p.OnRetry != nil {
			p.OnRetry(n+1, wait, err)
		}
		if err := sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// sleep waits d or until ctx ends, whichever is first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
