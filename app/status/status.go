// Package status owns what the status bar shows: whether the model server
// the settings name answers and has the chosen model, whether Docker runs
// with the Python sandbox's image, the last answer given (so that only a
// change is announced), and the build of the sandbox image that fixes the
// Docker check. The window (app) forwards its answers as events.
package status

import (
	"context"
	"sync"
	"time"
)

// Check is one thing the status bar shows: whether it works, what was
// found, and how to fix it.
type Check struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
	// Action, when set, names what the app itself can do to fix it
	// (ActionBuildSandbox).
	Action string `json:"action,omitempty"`
}

// Status is the model's and Docker's availability.
type Status struct {
	Model  Check
	Docker Check
}

// timeout bounds each probe.
const timeout = 3 * time.Second

// Of checks the model server and Docker at once.
func Of(ctx context.Context, m Server, dockerHost string) Status {
	var st Status
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); st.Model = CheckModel(ctx, m) }()
	go func() { defer wg.Done(); st.Docker = CheckDocker(ctx, dockerHost) }()
	wg.Wait()
	return st
}

// Cache remembers the last status given. It is safe for concurrent use.
type Cache struct {
	mu   sync.Mutex
	last *Status
}

// Note remembers st and says whether it differs from the last one (always
// for the first).
func (c *Cache) Note(st Status) (changed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	changed = c.last == nil || *c.last != st
	c.last = &st
	return changed
}

// NoteModel replaces the model's check of the last status given (a real
// call's verdict, AfterCall) and returns the status now, and whether it
// changed.
func (c *Cache) NoteModel(m Check) (st Status, changed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last != nil {
		st = *c.last
	}
	changed = c.last == nil || st.Model != m
	st.Model = m
	c.last = &st
	return st, changed
}
