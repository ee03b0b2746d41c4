package session

import (
	"context"
	"sync"
	"time"

	"github.com/loupeapp/loupe/data/store"
)

// Runs is what is running in this process: the cancel function of each
// thing that can be stopped, by key (a run's id, ReportKey of it, an
// import, the sandbox build), and the live runs of the conversations with
// their recorders (whose traces a conversation shows while they go). It is
// safe for concurrent use.
type Runs struct {
	mu      sync.Mutex
	cancels map[string]context.CancelFunc
	live    map[string]liveRun // by run id
	going   sync.WaitGroup     // live runs, which the store outlives
}

// liveRun is a run of this process and the conversation it answers in.
type liveRun struct {
	chatID string
	rec    *Recorder
}

// NewRuns returns an empty registry.
func NewRuns() *Runs {
	return &Runs{cancels: map[string]context.CancelFunc{}, live: map[string]liveRun{}}
}

// ReportKey is the key of the report being written for runID.
func ReportKey(runID string) string { return "report:" + runID }

// Add registers cancel under key, or reports false (and registers
// nothing) when key is running already.
func (r *Runs) Add(key string, cancel context.CancelFunc) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, busy := r.cancels[key]; busy {
		return false
	}
	r.cancels[key] = cancel
	return true
}

// Remove forgets key.
func (r *Runs) Remove(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.cancels, key)
}

// Cancel stops what runs under key; an unknown key does nothing.
func (r *Runs) Cancel(key string) {
	r.mu.Lock()
	cancel := r.cancels[key]
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Begin registers a run of this process answering in chatID, into the
// answer claim, stopped by cancel; it returns the run's recorder. End
// forgets it.
func (r *Runs) Begin(chatID string, claim *store.Run, cancel context.CancelFunc) *Recorder {
	rec := NewRecorder(claim)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cancels[claim.RunID] = cancel
	r.live[claim.RunID] = liveRun{chatID: chatID, rec: rec}
	r.going.Add(1)
	return rec
}

// End forgets a finished run; ending it again does nothing.
func (r *Runs) End(rec *Recorder) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.cancels, rec.RunID())
	if _, ok := r.live[rec.RunID()]; ok {
		delete(r.live, rec.RunID())
		r.going.Done()
	}
}

// Running returns the recorders of the live runs of chatID, or of every
// conversation when chatID is empty, by run id.
func (r *Runs) Running(chatID string) map[string]*Recorder {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]*Recorder{}
	for id, l := range r.live {
		if chatID == "" || l.chatID == chatID {
			out[id] = l.rec
		}
	}
	return out
}

// Wait waits until every live run ended, or d passed; it reports whether
// they all ended.
func (r *Runs) Wait(d time.Duration) bool {
	done := make(chan struct{})
	go func() { r.going.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}
