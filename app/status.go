package app

import (
	"context"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/app/status"
)

// EventStatusChanged carries a Status whenever a check gives a new answer.
const EventStatusChanged = "status:changed"

// Check is one thing the status bar shows: whether it works, what was
// found, and how to fix it (status.Check).
type Check status.Check

// Status is the model's and Docker's availability.
type Status struct {
	Model  Check `json:"model"`
	Docker Check `json:"docker"`
}

// Status checks whether the chosen model answers and whether Docker runs,
// and publishes status:changed when the answer changed.
func (a *App) Status() (*Status, error) {
	st := a.checkStatus(a.life)
	a.noteStatus(st)
	return &st, nil
}

func (a *App) refreshStatus(ctx context.Context) {
	a.noteStatus(a.checkStatus(ctx))
}

func (a *App) noteStatus(st Status) {
	if a.status.Note(status.Status{Model: status.Check(st.Model), Docker: status.Check(st.Docker)}) {
		a.publish(EventStatusChanged, st)
	}
}

// checkStatus checks the model server the settings name and Docker
// (status.Of).
func (a *App) checkStatus(ctx context.Context) Status {
	cs, err := a.settings.Get()
	m := status.Server{Settings: cs, Err: err,
		Open:   func() (llm.Provider, error) { return a.listingProvider(cs) },
		HasKey: func(base string) bool { k, _ := a.settings.KeyFor(base); return k != "" }}
	st := status.Of(ctx, m, a.dockerHost())
	return Status{Model: Check(st.Model), Docker: Check(st.Docker)}
}

func (a *App) dockerHost() string { return status.DockerHost(a.opts.DockerHost, a.opts.Getenv) }
