package session

import (
	"sync"
	"time"
)

// ProgressEvery is the shortest gap between two progress reports of one
// load or import whose phase did not change.
const ProgressEvery = 100 * time.Millisecond

// Throttle returns a progress callback that hands reports on to send: every
// change of phase (phase of the report), the "done" phase always, and at
// most one report per ProgressEvery in between. It is safe for concurrent
// use.
func Throttle[P any](phase func(P) string, send func(P)) func(P) {
	var (
		mu   sync.Mutex
		last time.Time
		was  string
		seen bool
	)
	return func(p P) {
		ph := phase(p)
		mu.Lock()
		now := time.Now()
		ok := !seen || ph != was || ph == "done" || now.Sub(last) >= ProgressEvery
		if ok {
			last, was, seen = now, ph, true
		}
		mu.Unlock()
		if ok {
			send(p)
		}
	}
}
