// Package session is the layer under the window (package app), `loupe
// serve` and the command line (app/cli): it asks (Ask, for a workspace or
// a connection), records and replays conversations (Recorder, TurnOf,
// History), writes and keeps reports, and owns what a long-lived process
// holds open (Session: the workspace, the conversation store, the runs in
// flight, the saved connections and their pool). Its errors are *Error,
// with the codes the frontend switches on; callers translate them, they
// do not orchestrate.
package session

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/app/config"
	"github.com/loupeapp/loupe/app/sqlhistory"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/data/workspace"
)

// Session is Loupe in a long-lived process (the window, `loupe serve`):
// the workspace (Local), the conversations and the runs in flight, the
// saved connections and the result sets the views page through. The
// window orchestrates nothing itself: it calls these and translates what
// comes back (DTOs, error codes, events).
type Session struct {
	Life    context.Context
	Log     *slog.Logger
	Local   *Local
	Chats   *Conversations
	Runs    *Runs
	Conns   *Connections
	Results *results.Store
	// Console is the SQL console's running queries (zero: none).
	Console Console
	// Go runs fn in the background within Life and reports whether it
	// started (not once Life ended); the window waits for such work at
	// shutdown.
	Go func(fn func(ctx context.Context)) bool

	histMu sync.Mutex
	hist   *sqlhistory.History // QueryHistory, made on first use
}

// Launch claims pair's answer for a new run of m, bounded by o, and
// answers it in the background: on the workspace, or on the connection
// the conversation is about. Its events are recorded, then handed to
// publish in batches (at most one per BatchInterval, text deltas merged).
// The batch holding run_finished finishes the stored answer and frees the
// conversation before it goes out, since whoever sees it may ask the next
// question at once. A run always ends with one run_finished, even when the
// agent could not be built. Launch returns the run's id.
func (s *Session) Launch(st *store.Store, pair *store.Pair, m *config.Model, o assemble.Options,
	publish func(chatID, runID string, evs []agent.Event)) (string, error) {
	chatID := pair.User.ConversationID
	runID := store.NewID("run")
	claim, err := st.Claim(s.Life, pair.Assistant.ID, runID)
	if err != nil {
		return "", StoreError(err, chatID)
	}
	ctx, cancel := context.WithCancel(s.Life)
	rec := s.Runs.Begin(chatID, claim, cancel)
	// The model's requests are kept with this answer (the outbox).
	ctx, err = assemble.SendFor(ctx, st, chatID, pair.Assistant.ID, m.Level, m.Server())
	if err != nil {
		cancel()
		s.finish(rec, &agent.Outcome{RunID: runID, Status: agent.Failed, Reason: "Loupe could not keep a record of what is sent: " + err.Error()})
		return "", Wrap(err)
	}
	started := s.Go(func(context.Context) {
		defer cancel()
		s.run(ctx, st, pair, rec, m, o, publish)
	})
	if !started {
		cancel()
		s.finish(rec, &agent.Outcome{RunID: runID, Status: agent.Canceled, Reason: "Loupe is shutting down."})
		return "", NewError(CodeCanceled, "Loupe is shutting down.", "")
	}
	return runID, nil
}

// run runs the agent, each batch of its events stored before it is
// published.
func (s *Session) run(ctx context.Context, st *store.Store, pair *store.Pair, rec *Recorder, m *config.Model, o assemble.Options,
	publish func(chatID, runID string, evs []agent.Event)) {
	runID, chatID := rec.RunID(), pair.User.ConversationID
	b := newBatcher(BatchInterval, func(evs []agent.Event) {
		s.record(rec, evs)
		publish(chatID, runID, evs)
	})
	req := AskRequest{Store: st, Pair: pair, Recorder: rec, Results: s.Results, Provider: m.Provider, Model: m.Config.Model,
		Options: o, Sink: b, Forgot: func(err error) { s.Log.Error("keep a run's queries for follow-ups", "run", runID, "err", err) }}
	conn, err := ChatConnection(ctx, st, chatID)
	if err == nil {
		err = s.ask(ctx, conn, req, &m.Config)
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
// run; cfg names the embedding model of the workspace's semantic boost.
// An error means the agent never ran.
func (s *Session) ask(ctx context.Context, conn string, req AskRequest, cfg *provider.Config) error {
	if conn != "" {
		r, release, err := s.Conns.Open(ctx, conn)
		if err != nil {
			return s.Conns.shape(err)
		}
		defer release()
		req.Target = &Connection{Remote: r}
		_, err = Ask(ctx, req)
		return err
	}
	return s.Local.Use(func(_ context.Context, ws *workspace.Workspace) error {
		req.Target = s.Local.Target(ws, cfg)
		_, err := Ask(ctx, req)
		return err
	})
}

// record stores a delivered batch; a batch holding run_finished also frees
// the run.
func (s *Session) record(rec *Recorder, evs []agent.Event) {
	if err := rec.Record(evs...); err != nil && !errors.Is(err, store.ErrNotFound) {
		s.Log.Error("store a run's events", "run", rec.RunID(), "err", err)
	}
	for _, e := range evs {
		if e.Type == agent.RunFinished {
			s.Runs.End(rec)
			if out := e.Finished; out != nil {
				s.Log.Info("run finished", "run", out.RunID, "status", out.Status, "steps", out.Meta.Steps,
					"tool_calls", out.Meta.ToolCalls, "duration_ms", int(out.Meta.DurationMS))
			}
		}
	}
}

// finish ends a run that never started.
func (s *Session) finish(rec *Recorder, out *agent.Outcome) {
	s.record(rec, []agent.Event{{Type: agent.RunFinished, RunID: out.RunID, At: time.Now(), Finished: out}})
}

// Cancel stops a run, or the report being written for it; the run still
// ends with run_finished, status canceled. An unknown id does nothing.
func (s *Session) Cancel(runID string) {
	s.Runs.Cancel(runID)
	s.Runs.Cancel(ReportKey(runID))
}

// ChatConnection returns the connection the conversation id is about,
// "" for the workspace.
func ChatConnection(ctx context.Context, st *store.Store, id string) (string, error) {
	c, err := st.Conversation(ctx, id)
	if err != nil {
		return "", err
	}
	return remote.LabelName(c.Workspace), nil
}
