package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/loupeapp/loupe/data/privacy"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/agent/llm/provider"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/data/workspace"
	"github.com/loupeapp/loupe/tools"
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
	return runModel{p: p, model: cfg.Model, opts: o, server: provider.ServerURL(cfg)}, nil
}

// launch claims pair's answer for a new run and runs the agent on its
// question in the background (Ask and Retry).
func (a *App) launch(st *store.Store, pair *store.Pair, m runModel) (*AskResult, error) {
	chatID, question := pair.User.ConversationID, pair.User.Content
	runID := store.NewID("run")
	claim, err := st.Claim(a.life, pair.Assistant.ID, runID)
	if err != nil {
		return nil, storeError(err, chatID)
	}
	ctx, cancel := context.WithCancel(a.life)
	a.runs.add(runID, cancel)
	rec := a.chats.begin(chatID, claim)
	// The model's requests are kept with this answer (the outbox).
	ctx, err = assemble.SendFor(ctx, st, chatID, pair.Assistant.ID, m.opts.Privacy, m.server)
	if err != nil {
		cancel()
		a.finishRun(rec, &agent.Outcome{RunID: runID, Status: agent.Failed, Reason: "Loupe could not keep a record of what is sent: " + err.Error()})
		return nil, wrap(err)
	}
	in := agent.Input{RunID: runID, ChatID: chatID, Question: question}
	started := a.background(func(context.Context) {
		defer cancel()
		a.run(ctx, st, pair, rec, m.p, m.model, m.opts, in)
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
func (a *App) run(ctx context.Context, st *store.Store, pair *store.Pair, rec *Recorder, p llm.Provider, model string, o assemble.Options, in agent.Input) {
	b := newBatcher(batchInterval, func(evs []agent.Event) {
		a.record(rec, evs)
		a.publish(EventRunEvents, RunEvents{RunID: in.RunID, ChatID: in.ChatID, Events: evs})
	})
	conn, err := chatConnection(ctx, st, in.ChatID)
	if err == nil && conn != "" {
		err = a.runRemote(ctx, conn, st, pair, rec, p, model, o, in, b)
	} else if err == nil {
		err = a.runWorkspace(ctx, st, pair, rec, p, model, o, in, b)
	}
	if err != nil {
		out := &agent.Outcome{RunID: in.RunID, Status: agent.Failed}
		if ctx.Err() != nil {
			out.Status, out.Reason = agent.Canceled, "Stopped before it started."
		} else {
			e := AsError(err)
			out.Reason = strings.TrimSpace(e.Message + " " + e.Hint)
		}
		now := time.Now()
		b.Emit(agent.Event{Type: agent.RunStarted, RunID: in.RunID, ChatID: in.ChatID, At: now})
		b.Emit(agent.Event{Type: agent.RunFinished, RunID: in.RunID, ChatID: in.ChatID, At: now, Finished: out})
	}
}

// runWorkspace answers in over the workspace's datasets. An error means
// the agent never ran.
func (a *App) runWorkspace(ctx context.Context, st *store.Store, pair *store.Pair, rec *Recorder, p llm.Provider, model string, o assemble.Options, in agent.Input, b *batcher) error {
	return a.withWorkspace(func(_ context.Context, ws *workspace.Workspace) error {
		ret, extra := a.ws.extras()
		s, err := a.settings.get()
		if err != nil {
			return err
		}
		// The semantic boost follows the settings (off without an embedding model).
		if err := ret.UseEmbedding(ctx, a.modelConfig(s)); err != nil {
			return err
		}
		sch, meta, err := ret.Schema(ctx, in.Question)
		if err != nil {
			return err
		}
		in.Schema, in.Notes = sch, meta.Notes()
		rec.UseTables(tableNames(sch))
		if in.History, err = History(ctx, st, pair, p, model, o.Privacy); err != nil {
			return err
		}
		ag, err := assemble.Agent(ws, a.results, p, model, o, append(extra, ret.Tools()...)...)
		if err != nil {
			return err
		}
		out := ag.Run(tools.WithChat(ctx, in.ChatID), in, b)
		if out.Status == agent.Done {
			if err := ret.Remember(context.WithoutCancel(ctx), in.ChatID, in.Question, out); err != nil {
				a.log.Error("keep a run's queries for follow-ups", "run", in.RunID, "err", err)
			}
		}
		return nil
	})
}

// record stores a delivered batch; a batch holding run_finished also frees
// the run.
func (a *App) record(rec *Recorder, evs []agent.Event) {
	if err := rec.Record(evs...); err != nil && !errors.Is(err, store.ErrNotFound) {
		a.log.Error("store a run's events", "run", rec.RunID(), "err", err)
	}
	for _, e := range evs {
		if e.Type == agent.RunFinished {
			a.runs.remove(rec.RunID())
			a.chats.end(rec)
			if out := e.Finished; out != nil {
				a.log.Info("run finished", "run", out.RunID, "status", out.Status, "steps", out.Meta.Steps,
					"tool_calls", out.Meta.ToolCalls, "duration_ms", int(out.Meta.DurationMS))
			}
		}
	}
}

// finishRun ends a run that never started.
func (a *App) finishRun(rec *Recorder, out *agent.Outcome) {
	a.record(rec, []agent.Event{{Type: agent.RunFinished, RunID: out.RunID, At: time.Now(), Finished: out}})
}

// Cancel stops a run (or the report being written for it) within a second;
// the run still ends with run_finished, status "canceled". Canceling a run
// that has finished, or an unknown id, does nothing.
func (a *App) Cancel(runID string) error {
	a.runs.cancel(runID)
	a.runs.cancel(reportKey(runID))
	return nil
}

// contextSizer is a provider that knows a model's context window (Ollama).
type contextSizer interface {
	ContextLength(ctx context.Context, model string) (int, error)
}

// History builds the history of the question pair asks from the messages
// stored before it, within agent.HistoryBudget of the model's context
// window when the provider knows it. At the schema privacy level it holds
// no value: earlier answers as the model wrote them (with references),
// and answers made at another level without their text or tool results
// (see schemaPast). (A function, not a method: the CLI uses it too, and it
// is not bound.)
func History(ctx context.Context, st *store.Store, pair *store.Pair, p llm.Provider, model string, level privacy.Level) ([]llm.Message, error) {
	th, err := st.Thread(ctx, pair.User.ConversationID)
	if err != nil {
		return nil, err
	}
	var past []agent.Past
	for _, m := range th.Messages {
		if m.Seq >= pair.User.Seq {
			break
		}
		pm := pastOf(m)
		if level == privacy.Schema && m.Role == store.Assistant {
			if pm, err = schemaPast(ctx, st, m, pm); err != nil {
				return nil, err
			}
		}
		past = append(past, pm)
	}
	window := 0
	if cs, ok := p.(contextSizer); ok {
		if n, err := cs.ContextLength(ctx, model); err == nil {
			window = n
		}
	}
	return agent.History(past, agent.HistoryOptions{MaxTokens: agent.HistoryBudget(window)}), nil
}

// schemaPast is a past answer as a run at the schema level may send it:
// made at schema, its text as the model wrote it (the stored text has the
// values filled in) and its tool calls without their results (a stored
// result may be what the user saw, when the run was cut short); made at
// another level, neither.
func schemaPast(ctx context.Context, st *store.Store, m store.Message, p agent.Past) (agent.Past, error) {
	b, err := st.BlobOf(ctx, m.ID)
	if err != nil {
		return p, err
	}
	var out struct {
		Written string `json:"written"`
		Meta    struct {
			SchemaOnly bool `json:"schema_only"`
		} `json:"meta"`
	}
	if len(b.Outcome) > 0 {
		if err := json.Unmarshal(b.Outcome, &out); err != nil {
			return p, fmt.Errorf("read a stored outcome: %w", err)
		}
	}
	switch {
	case !out.Meta.SchemaOnly:
		p.Content, p.Calls = "(an earlier answer, made at another privacy level: not sent at the schema level)", nil
	case out.Written != "":
		p.Content = out.Written
	}
	for i := range p.Calls {
		p.Calls[i].Result = "(not sent at the schema privacy level)"
	}
	return p, nil
}

// pastOf is a stored message as agent.History reads it.
func pastOf(m store.Message) agent.Past {
	p := agent.Past{Role: llm.Role(m.Role), Content: m.Content, Status: string(m.Status), Error: m.Error}
	for _, c := range m.ToolCalls {
		p.Calls = append(p.Calls, agent.PastCall{Name: c.Name, Arguments: c.Arguments, Result: c.Result, Failed: c.Failed, Skipped: c.Skipped})
	}
	return p
}

func tableNames(s agent.Schema) []string {
	names := make([]string, 0, len(s.Tables))
	for _, t := range s.Tables {
		names = append(names, t.Name)
	}
	return names
}

// Recorder writes a run's events into its claimed answer as they come:
// the visible text so far, each finished tool call, each chart, the tokens,
// and at run_finished the final status, content, accounting and the trace
// and outcome to replay. Each write is committed before Record returns, so
// whatever a caller shows after recording survives a crash. It is safe
// for concurrent use.
type Recorder struct {
	// MergeDeltas merges consecutive text deltas of a step in the stored
	// trace, for callers recording raw events (the app records batches,
	// already merged, and keeps them as they were published).
	MergeDeltas bool

	run *store.Run

	mu      sync.Mutex
	tables  []string
	texts   []stepText
	calls   map[string]agent.CallEvent // by step:id, until their result
	done    []store.ToolCall
	trace   []agent.Event
	prompt  int
	compl   int
	err     error
	stopped bool
}

type stepText struct {
	step int
	text strings.Builder
}

// NewRecorder records into run.
func NewRecorder(run *store.Run) *Recorder {
	return &Recorder{run: run, calls: map[string]agent.CallEvent{}}
}

// RunID is the run being recorded.
func (r *Recorder) RunID() string { return r.run.RunID }

// MessageID is the answer being recorded.
func (r *Recorder) MessageID() string { return r.run.MessageID }

// UseTables names the workspace's tables, to tell which ones the answer
// used.
func (r *Recorder) UseTables(names []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tables = names
}

// Trace is a copy of the events recorded so far (text deltas merged).
func (r *Recorder) Trace() []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agent.Event(nil), r.trace...)
}

// Record stores evs. It returns the first error any write met (later
// writes are still tried). Events after run_finished are ignored.
func (r *Recorder) Record(evs ...agent.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx := context.Background() // a cancelled run still records how it ended
	for _, e := range evs {
		if r.stopped {
			break
		}
		r.addTrace(e)
		var err error
		switch e.Type {
		case agent.TextDelta:
			r.stepText(e.Step).text.WriteString(e.Text)
			err = r.run.Text(ctx, r.partial())
		case agent.TextReset:
			r.stepText(e.Step).text.Reset()
			err = r.run.Text(ctx, r.partial())
		case agent.ToolCalled:
			r.calls[callKey(e.Step, e.Call.ID)] = *e.Call
		case agent.ToolResult:
			err = r.run.Call(ctx, r.finishedCall(e))
		case agent.ChartMade:
			err = r.run.Chart(ctx, chartOf(e.Chart))
		case agent.UsageReported:
			r.prompt += e.Usage.PromptTokens
			r.compl += e.Usage.CompletionTokens
			err = r.run.Usage(ctx, r.prompt, r.compl)
		case agent.RunFinished:
			r.stopped = true
			err = r.run.Finish(ctx, r.final(e.Finished))
		}
		if err != nil && r.err == nil {
			r.err = err
		}
	}
	return r.err
}

// addTrace appends e to the trace, merging consecutive deltas of a step
// when asked to.
func (r *Recorder) addTrace(e agent.Event) {
	if n := len(r.trace); r.MergeDeltas && n > 0 && (e.Type == agent.TextDelta || e.Type == agent.ThinkingDelta) {
		if prev := &r.trace[n-1]; prev.Type == e.Type && prev.Step == e.Step {
			prev.Text += e.Text
			return
		}
	}
	if e.Type == agent.RunFinished {
		e.Finished = nil // kept whole as the outcome
	}
	r.trace = append(r.trace, e)
}

func (r *Recorder) stepText(step int) *stepText {
	for i := range r.texts {
		if r.texts[i].step == step {
			return &r.texts[i]
		}
	}
	r.texts = append(r.texts, stepText{step: step})
	return &r.texts[len(r.texts)-1]
}

// partial is the visible text of every step so far.
func (r *Recorder) partial() string {
	var parts []string
	for i := range r.texts {
		if t := strings.TrimSpace(r.texts[i].text.String()); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

func callKey(step int, id string) string { return strconv.Itoa(step) + ":" + id }

// finishedCall is the stored form of a tool_result event and its call.
func (r *Recorder) finishedCall(e agent.Event) store.ToolCall {
	res := e.Result
	call := r.calls[callKey(e.Step, res.CallID)]
	delete(r.calls, callKey(e.Step, res.CallID))
	c := store.ToolCall{Seq: len(r.done) + 1, CallID: res.CallID, Step: e.Step, Name: res.Name, Arguments: string(call.Arguments),
		Result: resultText(res), Ref: res.Ref, Failed: res.Failed, Skipped: res.Skipped, DurationMS: res.DurationMS}
	if c.Name == "" {
		c.Name = call.Name
	}
	r.done = append(r.done, c)
	return c
}

// resultText is what a tool result said, until the outcome's transcript
// gives the text the model read: its ref and summary, and the first rows
// of a table or the text shown.
func resultText(res *agent.ResultEvent) string {
	var b strings.Builder
	if res.Ref != "" {
		b.WriteString("[" + res.Ref + "] ")
	}
	b.WriteString(res.Summary)
	d := res.Display
	switch {
	case d.Table != nil:
		cols := make([]string, len(d.Table.Columns))
		for i, c := range d.Table.Columns {
			cols[i] = c.Name
		}
		b.WriteString("\n| " + strings.Join(cols, " | ") + " |")
		for i, row := range d.Table.Preview {
			if i == 20 {
				break
			}
			cells := make([]string, len(row))
			for j, v := range row {
				cells[j] = fmt.Sprint(v)
			}
			b.WriteString("\n| " + strings.Join(cells, " | ") + " |")
		}
	case d.Text != "" && d.Text != res.Summary:
		b.WriteString("\n" + d.Text)
	}
	return b.String()
}

// chartOf is the stored form of a chart, its data rows taken from the
// spec's inlined values.
func chartOf(c *agent.ChartEvent) store.Chart {
	out := store.Chart{Ref: c.Ref, CallID: c.CallID, SQL: c.SQL}
	if c.Chart == nil {
		return out
	}
	out.Title, out.Mark, out.Spec, out.Rows = c.Chart.Title, c.Chart.Mark, c.Chart.Spec, c.Chart.Rows
	var spec struct {
		Data struct {
			Values json.RawMessage `json:"values"`
		} `json:"data"`
	}
	if json.Unmarshal(c.Chart.Spec, &spec) == nil {
		out.Data = spec.Data.Values
	}
	return out
}

// final is how the run ended, for the store.
func (r *Recorder) final(out *agent.Outcome) store.Final {
	if out == nil {
		out = &agent.Outcome{Status: agent.Failed, Reason: "the run ended without an outcome"}
	}
	f := store.Final{Content: r.partial(), Error: out.Reason, PromptTokens: max(out.Meta.PromptTokens, r.prompt),
		CompletionTokens: max(out.Meta.CompletionTokens, r.compl), Steps: out.Meta.Steps, DurationMS: out.Meta.DurationMS,
		Model: out.Meta.Model, Provider: out.Meta.Provider}
	switch out.Status {
	case agent.Done:
		f.Status, f.Content = store.Complete, out.Answer
	case agent.NeedsInput:
		f.Status = store.NeedsInput
		if q := out.Question; q != nil {
			f.Content = q.Text
			for _, o := range q.Options {
				f.Content += "\n- " + o
			}
		}
	case agent.Canceled:
		f.Status = store.Interrupted
	default:
		f.Status = store.Failed
	}
	f.ToolCalls = r.withTranscript(out.Transcript)
	f.Datasets = r.datasets()
	trace, err1 := json.Marshal(r.trace)
	outcome, err2 := json.Marshal(slim(out, r.trace))
	if err := errors.Join(err1, err2); err == nil {
		f.Blob = store.Blob{Trace: trace, Outcome: outcome}
	}
	return f
}

// withTranscript gives the recorded calls the results the model read, from
// the transcript's tool messages (one per result event, in order).
func (r *Recorder) withTranscript(tr []llm.Message) []store.ToolCall {
	var results []llm.Message
	for _, m := range tr {
		if m.Role == llm.Tool {
			results = append(results, m)
		}
	}
	if len(results) != len(r.done) {
		return nil
	}
	out := append([]store.ToolCall(nil), r.done...)
	for i, m := range results {
		if m.ToolCallID != out[i].CallID {
			return nil
		}
		out[i].Result = m.Content
	}
	return out
}

// datasets names the tables the answer's successful calls mention.
func (r *Recorder) datasets() []string {
	var used []string
	for _, t := range r.tables {
		re, err := regexp.Compile(`(?i)(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(t) + `($|[^A-Za-z0-9_])`)
		if err != nil {
			continue
		}
		for _, c := range r.done {
			if !c.Failed && !c.Skipped && re.MatchString(c.Arguments) {
				used = append(used, t)
				break
			}
		}
	}
	return used
}

// slim is the outcome as stored beside its trace: without the transcript
// (the history is built from the stored tool calls) and without the
// evidence tables and charts the trace's results hold (OutcomeOf puts
// them back), so that a long conversation opens fast.
func slim(out *agent.Outcome, trace []agent.Event) *agent.Outcome {
	s := *out
	s.Transcript = nil
	s.Evidence = append([]agent.Evidence(nil), out.Evidence...)
	for i := range s.Evidence {
		if d := resultDisplay(trace, s.Evidence[i]); d != nil {
			s.Evidence[i].Table, s.Evidence[i].Chart = nil, nil
		}
	}
	return &s
}

// OutcomeOf decodes a stored outcome and puts back what slim left out
// (the evidence's tables, charts and displays, from the trace). It
// returns nil when the blob holds no outcome.
func OutcomeOf(b store.Blob) (*agent.Outcome, error) {
	if len(b.Outcome) == 0 {
		return nil, nil
	}
	var out agent.Outcome
	if err := json.Unmarshal(b.Outcome, &out); err != nil {
		return nil, fmt.Errorf("read a stored outcome: %w", err)
	}
	var trace []agent.Event
	if len(b.Trace) > 0 {
		if err := json.Unmarshal(b.Trace, &trace); err != nil {
			return nil, fmt.Errorf("read a stored trace: %w", err)
		}
	}
	restoreEvidence(&out, trace)
	return &out, nil
}

// restoreEvidence gives the outcome's evidence back its display, table and
// chart from the trace's results.
func restoreEvidence(out *agent.Outcome, trace []agent.Event) {
	for i := range out.Evidence {
		ev := &out.Evidence[i]
		d := resultDisplay(trace, *ev)
		if d == nil {
			continue
		}
		if ev.Display == nil {
			ev.Display = d
		}
		if ev.Table == nil {
			ev.Table = d.Table
		}
		if ev.Chart == nil {
			ev.Chart = d.Chart
		}
	}
}

// resultDisplay is the display of the trace's result that filed ev.
func resultDisplay(trace []agent.Event, ev agent.Evidence) *tools.Display {
	for i := range trace {
		if e := trace[i]; e.Type == agent.ToolResult && e.Result != nil && e.Result.CallID == ev.CallID && e.Result.Ref == ev.Ref {
			return &trace[i].Result.Display
		}
	}
	return nil
}
