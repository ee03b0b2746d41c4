package app

import (
	"context"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/app/status"
)

// observedProvider is an answer's model server that tells the status bar
// how each of its calls went (App.noteCall): a failed run turns the model's
// status to the failure, a later answer back to ready.
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

// observed is p reporting its calls to the status bar.
func (a *App) observed(p llm.Provider) llm.Provider {
	return observedProvider{Provider: p, note: a.noteCall}
}

// noteCall turns a real model call's outcome into the model's status
// (status.AfterCall) and publishes it when it changed.
func (a *App) noteCall(err error) {
	s, gerr := a.settings.Get()
	if gerr != nil {
		return
	}
	c, ok := status.AfterCall(s, err)
	if !ok {
		return
	}
	if st, changed := a.status.NoteModel(c); changed {
		a.publish(EventStatusChanged, Status{Model: Check(st.Model), Docker: Check(st.Docker)})
	}
}
