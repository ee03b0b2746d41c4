package llm

import (
	"context"
	"errors"
	"testing"
	"time"
)

func transient(kind Kind) error { return &Error{Provider: "test", Kind: kind, Message: string(kind)} }

var fast = RetryPolicy{Base: time.Millisecond, Max: 4 * time.Millisecond}

func TestRetry(t *testing.T) {
	plain := errors.New("not an llm error")
	tests := []struct {
		name     string
		policy   RetryPolicy
		errs     []error // what each attempt returns; past the end: nil
		wantN    int     // attempts made
		wantKind Kind    // of the returned error; "" with wantErr nil means success
		wantErr  error   // exact error expected (errors.Is)
	}{
		{"success at once", fast, nil, 1, "", nil},
		{"server error twice then ok", fast, []error{transient(ServerError), transient(ServerError)}, 3, "", nil},
		{"broken stream then ok", fast, []error{transient(StreamBroken)}, 2, "", nil},
		{"unreachable then ok", fast, []error{transient(Unreachable)}, 2, "", nil},
		{"not transient stops", fast, []error{transient(ModelNotFound), nil}, 1, ModelNotFound, nil},
		{"plain error stops", fast, []error{plain, nil}, 1, "", plain},
		{"exhausted after default 3 retries", fast,
			[]error{transient(ServerError), transient(ServerError), transient(ServerError), transient(RateLimited), nil}, 4, RateLimited, nil},
		{"custom retries", RetryPolicy{Retries: 1, Base: time.Millisecond},
			[]error{transient(ServerError), transient(Unreachable), nil}, 2, Unreachable, nil},
		{"negative retries means none", RetryPolicy{Retries: -1}, []error{transient(ServerError), nil}, 1, ServerError, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			err := Retry(context.Background(), tt.policy, func(context.Context) error {
				n++
				if n <= len(tt.errs) {
					return tt.errs[n-1]
				}
				return nil
			})
			if n != tt.wantN {
				t.Errorf("attempts = %d, want %d", n, tt.wantN)
			}
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("err = %v, want %v", err, tt.wantErr)
				}
			case tt.wantKind != "":
				if KindOf(err) != tt.wantKind {
					t.Errorf("err = %v, want kind %s", err, tt.wantKind)
				}
			case err != nil:
				t.Errorf("err = %v, want success", err)
			}
		})
	}
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	limited := &Error{Provider: "test", Kind: RateLimited, RetryAfter: 150 * time.Millisecond}
	var waits []time.Duration
	p := fast
	p.OnRetry = func(_ int, wait time.Duration, _ error) { waits = append(waits, wait) }
	n := 0
	start := time.Now()
	err := Retry(context.Background(), p, func(context.Context) error {
		if n++; n == 1 {
			return limited
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 150*time.Millisecond {
		t.Errorf("retried after %v, before the server's Retry-After of 150ms", el)
	}
	if len(waits) != 1 || waits[0] != 150*time.Millisecond {
		t.Errorf("waits = %v, want [150ms]", waits)
	}
}

func TestRetryAfterBeyondCapReturnsAtOnce(t *testing.T) {
	limited := &Error{Provider: "test", Kind: RateLimited, RetryAfter: time.Hour}
	n := 0
	start := time.Now()
	err := Retry(context.Background(), RetryPolicy{MaxRetryAfter: time.Second}, func(context.Context) error {
		n++
		return limited
	})
	if n != 1 || !errors.Is(err, limited) {
		t.Errorf("attempts = %d, err = %v; want 1 attempt and the rate-limit error", n, err)
	}
	if el := time.Since(start); el > 100*time.Millisecond {
		t.Errorf("took %v, want an immediate return", el)
	}
}

func TestRetryCancelDuringBackoff(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := RetryPolicy{Base: time.Minute, Max: time.Minute}
	p.OnRetry = func(int, time.Duration, error) { time.AfterFunc(20*time.Millisecond, cancel) }
	start := time.Now()
	err := Retry(ctx, p, func(context.Context) error { return transient(ServerError) })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("returned after %v, want at once after cancel", el)
	}
}

func TestRetryCtxEndedDuringAttempt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := Retry(ctx, fast, func(context.Context) error {
		n++
		cancel()
		return transient(StreamBroken) // what an adapter might report for the cut
	})
	if n != 1 || !errors.Is(err, context.Canceled) {
		t.Errorf("attempts = %d, err = %v; want 1 and context.Canceled", n, err)
	}
}

func TestBackoffBounds(t *testing.T) {
	p := RetryPolicy{Base: 100 * time.Millisecond, Max: time.Second}
	tests := []struct {
		attempt int
		full    time.Duration
	}{{1, 100 * time.Millisecond}, {2, 200 * time.Millisecond}, {3, 400 * time.Millisecond}, {4, 800 * time.Millisecond}, {5, time.Second}, {30, time.Second}}
	for _, tt := range tests {
		seen := map[time.Duration]bool{}
		for range 50 {
			d := p.Backoff(tt.attempt)
			if d < tt.full/2 || d > tt.full {
				t.Fatalf("Backoff(%d) = %v, want within [%v, %v]", tt.attempt, d, tt.full/2, tt.full)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Errorf("Backoff(%d) is not jittered: always %v", tt.attempt, seen)
		}
	}
}
