package session

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupeapp/loupe/agent"
)

// delivered records a batcher's batches and when they came.
type delivered struct {
	mu      sync.Mutex
	batches [][]agent.Event
	at      []time.Time
}

func (d *delivered) deliver(evs []agent.Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.batches = append(d.batches, evs)
	d.at = append(d.at, time.Now())
}

func TestBatcherBoundsTheRateOfABurst(t *testing.T) {
	for _, tc := range []struct {
		name   string
		deltas int
		every  time.Duration
	}{
		{"instant burst", 5000, 0},
		{"steady stream for 600 ms", 600, time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d delivered
			b := newBatcher(BatchInterval, d.deliver)
			start := time.Now()
			b.Emit(agent.Event{Type: agent.RunStarted})
			var want strings.Builder
			for i := range tc.deltas {
				s := string(rune('a' + i%26))
				want.WriteString(s)
				b.Emit(agent.Event{Type: agent.TextDelta, Step: 1, Text: s})
				if tc.every > 0 {
					time.Sleep(tc.every)
				}
			}
			b.Emit(agent.Event{Type: agent.RunFinished})
			elapsed := time.Since(start)

			d.mu.Lock()
			defer d.mu.Unlock()
			// One batch at once, then one per 50 ms, plus the final flush.
			limit := int(elapsed/BatchInterval) + 2
			if len(d.batches) > limit {
				t.Errorf("%d batches in %s, at most %d allowed (20 a second)", len(d.batches), elapsed, limit)
			}
			for i := 1; i < len(d.at)-1; i++ {
				if gap := d.at[i].Sub(d.at[i-1]); gap < BatchInterval-5*time.Millisecond {
					t.Errorf("batches %d and %d %s apart", i-1, i, gap)
				}
			}
			var got strings.Builder
			var all []agent.Event
			for _, batch := range d.batches {
				deltas := 0
				for _, e := range batch {
					if e.Type == agent.TextDelta {
						deltas++
						got.WriteString(e.Text)
					}
				}
				if deltas > 1 {
					t.Errorf("a batch holds %d text deltas of one step, want them merged", deltas)
				}
				all = append(all, batch...)
			}
			if got.String() != want.String() {
				t.Errorf("text changed in batching: %d bytes, want %d", got.Len(), want.Len())
			}
			if all[0].Type != agent.RunStarted || all[len(all)-1].Type != agent.RunFinished {
				t.Errorf("order lost: %s … %s", all[0].Type, all[len(all)-1].Type)
			}
			if len(d.batches) < 2 && tc.every > 0 {
				t.Errorf("a steady stream should arrive in several batches, got %d", len(d.batches))
			}
		})
	}
}

func TestBatcherFlushesRunFinishedAtOnce(t *testing.T) {
	var d delivered
	b := newBatcher(time.Hour, d.deliver) // no timer would fire during the test
	b.Emit(agent.Event{Type: agent.RunStarted})
	time.Sleep(10 * time.Millisecond)
	b.Emit(agent.Event{Type: agent.TextDelta, Step: 1, Text: "a"})
	b.Emit(agent.Event{Type: agent.ThinkingDelta, Step: 1, Text: "t"})
	b.Emit(agent.Event{Type: agent.TextDelta, Step: 1, Text: "b"})
	b.Emit(agent.Event{Type: agent.TextDelta, Step: 2, Text: "c"})
	b.Emit(agent.Event{Type: agent.RunFinished})
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.batches) != 2 {
		t.Fatalf("%d batches, want the first event at once and the rest with run_finished", len(d.batches))
	}
	var kinds []string
	for _, e := range d.batches[1] {
		kinds = append(kinds, string(e.Type)+":"+e.Text)
	}
	// Only consecutive deltas of the same kind and step merge.
	if got := strings.Join(kinds, " "); got != "text_delta:a thinking_delta:t text_delta:b text_delta:c run_finished:" {
		t.Errorf("second batch %s", got)
	}
}

func TestTextThrottle(t *testing.T) {
	var (
		mu  sync.Mutex
		got []string
	)
	tt := NewTextThrottle(BatchInterval, func(s string) { mu.Lock(); got = append(got, s); mu.Unlock() })
	start := time.Now()
	for range 300 {
		tt.Add("x")
		time.Sleep(time.Millisecond)
	}
	tt.Flush()
	elapsed := time.Since(start)
	mu.Lock()
	defer mu.Unlock()
	if n := len(got); n > int(elapsed/BatchInterval)+2 || strings.Join(got, "") != strings.Repeat("x", 300) {
		t.Errorf("%d deliveries in %s: %q", n, elapsed, got)
	}
}
