// Package agenttest holds what the agent loop's tests drive it with
// besides the model (the scripted fake server, agent/llm/fake): a Sink that
// keeps every event, and a small tool set over tables held in memory. It
// imports nothing of data/: the loop is tested without a database, the
// tools with one (tools/..., app/assemble's integration scenarios).
package agenttest

import (
	"sync"

	"github.com/loupeapp/loupe/agent"
)

// Recorder is an agent.Sink that keeps every event, safe for concurrent
// use.
type Recorder struct {
	mu     sync.Mutex
	events []agent.Event
}

var _ agent.Sink = (*Recorder)(nil)

// Emit keeps e.
func (r *Recorder) Emit(e agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// Events are the events kept so far, in order.
func (r *Recorder) Events() []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agent.Event(nil), r.events...)
}

// Of are the events of type t kept so far, in order.
func (r *Recorder) Of(t agent.EventType) []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []agent.Event
	for _, e := range r.events {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}
