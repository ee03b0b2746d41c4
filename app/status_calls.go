package app

import (
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/app/status"
)

// observed is p reporting its calls to the status bar (session.Observe,
// App.noteCall): a failed run turns the model's status to the failure, a
// later answer back to ready.
func (a *App) observed(p llm.Provider) llm.Provider { return session.Observe(p, a.noteCall) }

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
