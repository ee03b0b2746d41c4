package session

import (
	"context"

	"github.com/loupeapp/loupe/agent/llm"
)

// observedProvider is a model server that reports how each of its calls
// went (Observe).
type observedProvider struct {
	llm.Provider
	note func(error)
}

var _ llm.Provider = observedProvider{}

// Chat calls the server and reports the outcome, unless the run was stopped.
func (o observedProvider) Chat(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	r, err := o.Provider.Chat(ctx, req, onDelta)
	if ctx.Err() == nil {
		o.note(err)
	}
	return r, err
}

// Observe is p handing the outcome of each of its calls to note (nil for a
// call that worked), except those of a run that was stopped: the window's
// status bar follows the last real call.
func Observe(p llm.Provider, note func(error)) llm.Provider {
	return observedProvider{Provider: p, note: note}
}
