package app

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
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

// runRegistry holds the cancel functions of what is running, by key: a
// run's id, or reportKey(runID) for its report.
type runRegistry struct {
	mu      sync.Mutex
	cancels map[string]context.CancelFunc
}

func newRunRegistry() *runRegistry { return &runRegistry{cancels: map[string]context.CancelFunc{}} }

// add registers key, or reports false when it is already running.
func (r *runRegistry) add(key string, cancel context.CancelFunc) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, busy := r.cancels[key]; busy {
		return false
	}
	r.cancels[key] = cancel
	return true
}

func (r *runRegistry) remove(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.cancels, key)
}

func (r *runRegistry) cancel(key string) {
	r.mu.Lock()
	cancel := r.cancels[key]
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func reportKey(runID string) string { return "report:" + runID }

// Ask starts a run answering question in the chat and returns its id at
// once; the run streams run:events batches (at most 20 a second, text
// deltas merged) and its last batch holds run_finished. A chat has one run
// at a time: asking while one is going fails with code "busy". The run sees
// the chat's earlier turns as history, so an answer to the agent's
// clarifying question is simply the next Ask.
func (a *App) Ask(chatID, question string) (*AskResult, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return nil, newError(CodeInvalid, "The question is empty.", "Type a question about your data.")
	}
	s, err := a.settings.get()
	if err != nil {
		return nil, wrap(err)
	}
	cfg := a.settings.providerConfig(s)
	p, err := provider.Open(cfg)
	if err != nil {
		return nil, wrap(err)
	}
	runID := newID("run")
	history, err := a.claimChat(chatID, runID, question)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(a.life)
	a.runs.add(runID, cancel)
	in := agent.Input{RunID: runID, ChatID: chatID, Question: question, History: history}
	o := assemble.Options{MaxSteps: s.MaxSteps, Timeout: time.Duration(s.TimeoutSeconds) * time.Second}
	started := a.background(func(context.Context) {
		defer cancel()
		a.run(ctx, p, cfg.Model, o, in)
	})
	if !started {
		cancel()
		a.finishRun(chatID, runID, &agent.Outcome{RunID: runID, Status: agent.Canceled, Reason: "Loupe is shutting down."})
		return nil, newError(CodeCanceled, "Loupe is shutting down.", "")
	}
	return &AskResult{RunID: runID}, nil
}

// claimChat marks the chat as running runID, adds the turn, names the chat
// after its first question, and returns the history for the run.
func (a *App) claimChat(chatID, runID, question string) ([]llm.Message, error) {
	s := a.chats
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.chats[chatID]
	if !ok {
		return nil, chatNotFound(chatID)
	}
	if c.running != "" {
		return nil, newError(CodeBusy, "This conversation is still answering the previous question.",
			"Wait for the answer, or press Stop (Esc) first.")
	}
	c.running = runID
	c.turns = append(c.turns, &Turn{Question: question, RunID: runID})
	if !c.named {
		c.Name, c.named = nameFrom(question), true
	}
	c.Updated = time.Now().UTC()
	return slices.Clone(c.transcript), nil
}

// run runs the agent; it always ends with one run_finished event, even
// when the agent could not be built.
func (a *App) run(ctx context.Context, p llm.Provider, model string, o assemble.Options, in agent.Input) {
	b := newBatcher(batchInterval, func(evs []agent.Event) {
		a.chats.record(in.ChatID, in.RunID, evs)
		a.publish(EventRunEvents, RunEvents{RunID: in.RunID, ChatID: in.ChatID, Events: evs})
	})
	sink := agent.SinkFunc(func(e agent.Event) {
		if e.Type == agent.RunFinished {
			// Before the event goes out: the frontend may ask the next
			// question as soon as it sees it.
			a.finishRun(in.ChatID, in.RunID, e.Finished)
		}
		b.Emit(e)
	})
	err := a.withWorkspace(func(_ context.Context, ws *workspace.Workspace) error {
		sch, err := assemble.WorkspaceSchema(ctx, ws)
		if err != nil {
			return err
		}
		in.Schema = sch
		ag, err := assemble.Agent(ws, a.results, p, model, o)
		if err != nil {
			return err
		}
		ag.Run(ctx, in, sink)
		return nil
	})
	if err != nil {
		out := &agent.Outcome{RunID: in.RunID, Status: agent.Failed}
		if ctx.Err() != nil {
			out.Status, out.Reason = agent.Canceled, "Stopped before it started."
		} else {
			e := AsError(err)
			out.Reason = strings.TrimSpace(e.Message + " " + e.Hint)
		}
		now := time.Now()
		sink.Emit(agent.Event{Type: agent.RunStarted, RunID: in.RunID, ChatID: in.ChatID, At: now})
		sink.Emit(agent.Event{Type: agent.RunFinished, RunID: in.RunID, ChatID: in.ChatID, At: now, Finished: out})
	}
}

// record appends a delivered batch to its turn.
func (s *chatStore) record(chatID, runID string, evs []agent.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, t, err := s.turn(chatID, runID); err == nil {
		t.Events = append(t.Events, evs...)
	}
}

// finishRun stores the outcome, extends the chat's history with the run's
// transcript and frees the chat for the next question.
func (a *App) finishRun(chatID, runID string, out *agent.Outcome) {
	a.runs.remove(runID)
	s := a.chats
	s.mu.Lock()
	defer s.mu.Unlock()
	c, t, err := s.turn(chatID, runID)
	if err != nil { // the chat was deleted meanwhile
		return
	}
	t.Outcome = out
	if out != nil {
		c.transcript = append(c.transcript, out.Transcript...)
	}
	if c.running == runID {
		c.running = ""
	}
	c.Updated = time.Now().UTC()
}

// Cancel stops a run (or the report being written for it) within a second;
// the run still ends with run_finished, status "canceled". Canceling a run
// that has finished, or an unknown id, does nothing.
func (a *App) Cancel(runID string) error {
	a.runs.cancel(runID)
	a.runs.cancel(reportKey(runID))
	return nil
}
