package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/data/store"
)

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
