package app

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/data/workspace"
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
	st, err := a.chatStore()
	if err != nil {
		return nil, err
	}
	pair, err := st.Ask(a.life, chatID, question)
	if err != nil {
		return nil, storeError(err, chatID)
	}
	return a.launch(st, pair, m)
}

// runModel is what a run needs from the settings: the provider, its model
// and the limits.
type runModel struct {
	p      llm.Provider
	model  string
	opts   assemble.Options
	server string // the model server's address, for the outbox
}

// runModel opens the provider the settings name. Callers read it before
// they store the question, so a setting that cannot work leaves no
// unanswered question behind.
func (a *App) runModel() (runModel, error) {
	s, err := a.settings.get()
	if err != nil {
		return runModel{}, wrap(err)
	}
	cfg := a.modelConfig(s)
	p, err := provider.Open(cfg)
	if err != nil {
		return runModel{}, wrap(err)
	}
	lvl, err := a.levelInForce(cfg)
	if err != nil {
		return runModel{}, err
	}
	o := assemble.Options{MaxSteps: s.MaxSteps, Timeout: time.Duration(s.TimeoutSeconds) * time.Second, Privacy: lvl}
	return runModel{p: a.observed(p), model: cfg.Model, opts: o, server: provider.ServerURL(cfg)}, nil
}

// launch claims pair's answer for a new run and runs the agent on its
// question in the background (Ask and Retry).
func (a *App) launch(st *store.Store, pair *store.Pair, m runModel) (*AskResult, error) {
	chatID := pair.User.ConversationID
	runID := store.NewID("run")
	claim, err := st.Claim(a.life, pair.Assistant.ID, runID)
	if err != nil {
		return nil, storeError(err, chatID)
	}
	ctx, cancel := context.WithCancel(a.life)
	rec := a.runs.Begin(chatID, claim, cancel)
	// The model's requests are kept with this answer (the outbox).
	ctx, err = assemble.SendFor(ctx, st, chatID, pair.Assistant.ID, m.opts.Privacy, m.server)
	if err != nil {
		cancel()
		a.finishRun(rec, &agent.Outcome{RunID: runID, Status: agent.Failed, Reason: "Loupe could not keep a record of what is sent: " + err.Error()})
		return nil, wrap(err)
	}
	started := a.background(func(context.Context) {
		defer cancel()
		a.run(ctx, st, pair, rec, m)
	})
	if !started {
		cancel()
		a.finishRun(rec, &agent.Outcome{RunID: runID, Status: agent.Canceled, Reason: "Loupe is shutting down."})
		return nil, newError(CodeCanceled, "Loupe is shutting down.", "")
	}
	return &AskResult{RunID: runID}, nil
}

// run runs the agent; it always ends with one run_finished event, even
// when the agent could not be built. Each batch is stored before it is
// published; the batch holding run_finished finishes the stored answer and
// frees the chat before it goes out, since the frontend may ask the next
// question as soon as it sees it.
func (a *App) run(ctx context.Context, st *store.Store, pair *store.Pair, rec *session.Recorder, m runModel) {
	runID, chatID := rec.RunID(), pair.User.ConversationID
	b := newBatcher(batchInterval, func(evs []agent.Event) {
		a.record(rec, evs)
		a.publish(EventRunEvents, RunEvents{RunID: runID, ChatID: chatID, Events: evs})
	})
	req := session.AskRequest{Store: st, Pair: pair, Recorder: rec, Results: a.results, Provider: m.p, Model: m.model,
		Options: m.opts, Sink: b, Forgot: func(err error) { a.log.Error("keep a run's queries for follow-ups", "run", runID, "err", err) }}
	conn, err := chatConnection(ctx, st, chatID)
	if err == nil {
		err = a.ask(ctx, conn, req)
	}
	if err != nil {
		out := &agent.Outcome{RunID: runID, Status: agent.Failed}
		if ctx.Err() != nil {
			out.Status, out.Reason = agent.Canceled, "Stopped before it started."
		} else {
			e := AsError(err)
			out.Reason = strings.TrimSpace(e.Message + " " + e.Hint)
		}
		now := time.Now()
		b.Emit(agent.Event{Type: agent.RunStarted, RunID: runID, ChatID: chatID, At: now})
		b.Emit(agent.Event{Type: agent.RunFinished, RunID: runID, ChatID: chatID, At: now, Finished: out})
	}
}

// ask answers req over the workspace's datasets, or on the database of
// the connection conn when it is not empty, holding either open for the
// run. An error means the agent never ran.
func (a *App) ask(ctx context.Context, conn string, req session.AskRequest) error {
	if conn != "" {
		r, release, err := a.remote(ctx, conn)
		if err != nil {
			return err
		}
		defer release()
		req.Target = &session.Connection{Remote: r}
		_, err = session.Ask(ctx, req)
		return err
	}
	return a.withWorkspace(func(_ context.Context, ws *workspace.Workspace) error {
		ret, extra := a.ws.extras()
		s, err := a.settings.get()
		if err != nil {
			return err
		}
		// The semantic boost follows the settings (off without an embedding model).
		cfg := a.modelConfig(s)
		req.Target = &session.Workspace{WS: ws, Retrieval: ret, Extra: extra, Embedding: &cfg}
		_, err = session.Ask(ctx, req)
		return err
	})
}

// record stores a delivered batch; a batch holding run_finished also frees
// the run.
func (a *App) record(rec *session.Recorder, evs []agent.Event) {
	if err := rec.Record(evs...); err != nil && !errors.Is(err, store.ErrNotFound) {
		a.log.Error("store a run's events", "run", rec.RunID(), "err", err)
	}
	for _, e := range evs {
		if e.Type == agent.RunFinished {
			a.runs.End(rec)
			if out := e.Finished; out != nil {
				a.log.Info("run finished", "run", out.RunID, "status", out.Status, "steps", out.Meta.Steps,
					"tool_calls", out.Meta.ToolCalls, "duration_ms", int(out.Meta.DurationMS))
			}
		}
	}
}

// finishRun ends a run that never started.
func (a *App) finishRun(rec *session.Recorder, out *agent.Outcome) {
	a.record(rec, []agent.Event{{Type: agent.RunFinished, RunID: out.RunID, At: time.Now(), Finished: out}})
}

// Cancel stops a run (or the report being written for it) within a second;
// the run still ends with run_finished, status "canceled". Canceling a run
// that has finished, or an unknown id, does nothing.
func (a *App) Cancel(runID string) error {
	a.runs.Cancel(runID)
	a.runs.Cancel(session.ReportKey(runID))
	return nil
}
