package session

import (
	"sync"
	"time"

	"github.com/loupeapp/loupe/agent"
)

// BatchInterval is the shortest gap between two batches of one run:
// at most 20 batches a second reach the frontend.
const BatchInterval = 50 * time.Millisecond

// batcher is a run's Sink that turns the agent's event stream into
// batches: events wait until BatchInterval has passed since the previous
// batch, consecutive text (or thinking) deltas of a step are merged into
// one event, and run_finished flushes at once. Batches are delivered in
// order, one at a time, from the run's goroutine or a timer's.
type batcher struct {
	interval time.Duration
	deliver  func([]agent.Event)

	send    sync.Mutex // held while a batch is taken and delivered, for order
	mu      sync.Mutex
	pending []agent.Event
	timer   *time.Timer
	last    time.Time // when the previous batch went
}

var _ agent.Sink = (*batcher)(nil)

func newBatcher(interval time.Duration, deliver func([]agent.Event)) *batcher {
	return &batcher{interval: interval, deliver: deliver}
}

// Emit queues e; it never blocks on the frontend.
func (b *batcher) Emit(e agent.Event) {
	b.mu.Lock()
	b.add(e)
	if e.Type == agent.RunFinished {
		b.mu.Unlock()
		b.flush()
		return
	}
	if b.timer == nil {
		wait := max(b.interval-time.Since(b.last), 0)
		b.timer = time.AfterFunc(wait, b.flush)
	}
	b.mu.Unlock()
}

// add appends e, merging it into the previous event when both are deltas
// of the same kind and step.
func (b *batcher) add(e agent.Event) {
	if n := len(b.pending); n > 0 && (e.Type == agent.TextDelta || e.Type == agent.ThinkingDelta) {
		prev := &b.pending[n-1]
		if prev.Type == e.Type && prev.Step == e.Step {
			prev.Text += e.Text
			return
		}
	}
	b.pending = append(b.pending, e)
}

// flush delivers what is pending as one batch.
func (b *batcher) flush() {
	b.send.Lock()
	defer b.send.Unlock()
	b.mu.Lock()
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	batch := b.pending
	b.pending = nil
	if len(batch) > 0 {
		b.last = time.Now()
	}
	b.mu.Unlock()
	if len(batch) > 0 {
		b.deliver(batch)
	}
}

// TextThrottle merges streamed text (a report's) and hands it on at most
// once per interval; Flush hands on the rest at once.
type TextThrottle struct {
	interval time.Duration
	deliver  func(string)

	send  sync.Mutex
	mu    sync.Mutex
	text  string
	timer *time.Timer
	last  time.Time
}

// NewTextThrottle returns a throttle handing text on to deliver.
func NewTextThrottle(interval time.Duration, deliver func(string)) *TextThrottle {
	return &TextThrottle{interval: interval, deliver: deliver}
}

// Add queues s, handed on with what else comes within the interval.
func (t *TextThrottle) Add(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.text += s
	if t.timer == nil {
		t.timer = time.AfterFunc(max(t.interval-time.Since(t.last), 0), t.Flush)
	}
}

// Flush hands on what is queued at once.
func (t *TextThrottle) Flush() {
	t.send.Lock()
	defer t.send.Unlock()
	t.mu.Lock()
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
	s := t.text
	t.text = ""
	if s != "" {
		t.last = time.Now()
	}
	t.mu.Unlock()
	if s != "" {
		t.deliver(s)
	}
}
