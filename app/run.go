package app

import (
	"strings"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/data/store"
)

// EventRunEvents carries a RunEvents batch.
const EventRunEvents = "run:events"

// RunEvents is one batch of a run's events, in order. The last batch of a
// run holds its run_finished event.
type RunEvents struct {
	RunID  string        `json:"runId"`
	ChatID string        `json:"chatId"`
	Events []agent.Event `json:"events"`
}

// AskResult names the run Ask started.
type AskResult struct {
	RunID string `json:"runId"`
}

// Ask starts a run answering question in the chat and returns its id at
// once; the run streams run:events batches (at most 20 a second, text
// deltas merged) and its last batch holds run_finished. The question and
// the answer are stored as they stream (each batch is written before it is
// published), so a crash loses nothing shown. A chat has one run at a
// time: asking while one is going fails with code "busy". The run sees the
// chat's earlier messages as history (agent.History), so an answer to the
// agent's clarifying question, or "same but for 2023", is simply the next
// Ask.
func (a *App) Ask(chatID, question string) (*AskResult, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return nil, newError(CodeInvalid, "The question is empty.", "Type a question about your data.")
	}
	m, err := a.runModel()
	if err != nil {
		return nil, err
	}
	st, pair, err := a.s.Chats.Pose(a.life, chatID, question)
	if err != nil {
		return nil, err
	}
	return a.launch(st, pair, m)
}

// runModel is what a run needs from the settings: the model server,
// opened at the privacy level in force, and the limits.
type runModel struct {
	m    *config.Model
	opts assemble.Options
}

// runModel opens the model server the settings name (openModel). Callers
// read it before they store the question, so a setting that cannot work
// leaves no unanswered question behind.
func (a *App) runModel() (runModel, error) {
	m, s, err := a.openModel()
	if err != nil {
		return runModel{}, err
	}
	o := assemble.Options{MaxSteps: s.MaxSteps, Timeout: time.Duration(s.TimeoutSeconds) * time.Second, Privacy: m.Level}
	// Each model call tells the status bar how it went (status_calls.go).
	m.Provider = a.observed(m.Provider)
	return runModel{m: m, opts: o}, nil
}

// launch runs the agent on pair's question in the background
// (session.Launch), publishing its events (Ask and Retry).
func (a *App) launch(st *store.Store, pair *store.Pair, m runModel) (*AskResult, error) {
	runID, err := a.s.Launch(st, pair, m.m, m.opts, func(chatID, runID string, evs []agent.Event) {
		a.publish(EventRunEvents, RunEvents{RunID: runID, ChatID: chatID, Events: evs})
	})
	if err != nil {
		return nil, err
	}
	return &AskResult{RunID: runID}, nil
}

// Cancel stops a run (or the report being written for it) within a second;
// the run still ends with run_finished, status "canceled". Canceling a run
// that has finished, or an unknown id, does nothing.
func (a *App) Cancel(runID string) error {
	a.s.Cancel(runID)
	return nil
}
