package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/loupeapp/loupe/agent"
	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/tools"
)

// Turn is one question and the run that answered it: its events as they
// were streamed (batched, text coalesced) and, once finished, its outcome.
// (app.Turn is the window's DTO of the same shape.)
type Turn struct {
	Question string         `json:"question"`
	RunID    string         `json:"runId"`
	Events   []agent.Event  `json:"events"`
	Outcome  *agent.Outcome `json:"outcome,omitempty"`
}

// slim is the outcome as stored beside its trace: with the transcript
// (what the run sent and received, which the history of a follow-up
// replays as it was sent; see sentOf) but without the evidence tables and
// charts the trace's results hold (OutcomeOf puts them back), so that a
// long conversation opens fast.
func slim(out *agent.Outcome, trace []agent.Event) *agent.Outcome {
	s := *out
	s.Evidence = append([]agent.Evidence(nil), out.Evidence...)
	for i := range s.Evidence {
		if d := resultDisplay(trace, s.Evidence[i]); d != nil {
			s.Evidence[i].Table, s.Evidence[i].Chart = nil, nil
		}
	}
	return &s
}

// shown is a stored outcome as it is read to be shown: its transcript,
// which only a follow-up's history reads, is skipped, not decoded.
type shown struct {
	agent.Outcome
	Transcript json.RawMessage `json:"transcript,omitempty"`
}

// decodeShown decodes a stored outcome without its transcript.
func decodeShown(b []byte) (*agent.Outcome, error) {
	var s shown
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return &s.Outcome, nil
}

// OutcomeOf decodes a stored outcome and puts back what slim left out
// (the evidence's tables, charts and displays, from the trace). It
// returns nil when the blob holds no outcome.
func OutcomeOf(b store.Blob) (*agent.Outcome, error) {
	if len(b.Outcome) == 0 {
		return nil, nil
	}
	out, err := decodeShown(b.Outcome)
	if err != nil {
		return nil, fmt.Errorf("read a stored outcome: %w", err)
	}
	var trace []agent.Event
	if len(b.Trace) > 0 {
		if err := json.Unmarshal(b.Trace, &trace); err != nil {
			return nil, fmt.Errorf("read a stored trace: %w", err)
		}
	}
	restoreEvidence(out, trace)
	return out, nil
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

// allSpecs are the specs of every tool, for the views of replayed calls.
var allSpecs = sync.OnceValue(assemble.Specs)

// TurnOf is an answer as a turn: its stored trace and outcome, the trace
// so far of a run of this process, or, for an answer stored without them
// (interrupted by a crash), events made from what was stored. Stored
// calls without a view (written before tools described their display)
// get the current tools' views.
func TurnOf(m store.Message, b store.Blob, live *Recorder) Turn {
	t := Turn{RunID: m.RunID, Events: []agent.Event{}}
	if t.RunID == "" {
		t.RunID = m.ID
	}
	if len(b.Outcome) > 0 {
		if out, err := decodeShown(b.Outcome); err == nil {
			t.Outcome = out
		}
	}
	switch {
	case live != nil:
		t.Events = live.Trace()
		t.Outcome = nil
	case len(b.Trace) > 0 && json.Unmarshal(b.Trace, &t.Events) == nil:
	default:
		t.Events = eventsOf(m)
	}
	if live == nil { // a call stored before calls carried their view reads as a fresh one
		agent.WithViews(t.Events, allSpecs())
	}
	if t.Outcome == nil && live == nil && m.Status != store.Generating {
		t.Outcome = outcomeOf(m)
	}
	if t.Outcome != nil {
		restoreEvidence(t.Outcome, t.Events)
		for i := len(t.Events) - 1; i >= 0; i-- {
			if t.Events[i].Type == agent.RunFinished {
				t.Events[i].Finished = t.Outcome
				break
			}
		}
	}
	return t
}

// eventsOf makes the events of an answer stored without its trace: its
// finished tool calls and charts, its text, and how it ended.
func eventsOf(m store.Message) []agent.Event {
	at := m.Created
	ev := func(e agent.Event) agent.Event {
		e.RunID, e.At = m.RunID, at
		return e
	}
	out := []agent.Event{ev(agent.Event{Type: agent.RunStarted})}
	step := 0
	for _, c := range m.ToolCalls {
		if c.Step != step {
			step = c.Step
			out = append(out, ev(agent.Event{Type: agent.StepStarted, Step: step}))
		}
		args := json.RawMessage(c.Arguments)
		if !json.Valid(args) {
			args, _ = json.Marshal(c.Arguments)
		}
		out = append(out,
			ev(agent.Event{Type: agent.ToolCalled, Step: step, Call: &agent.CallEvent{ID: c.CallID, Name: c.Name, Arguments: args}}),
			ev(agent.Event{Type: agent.ToolResult, Step: step, Result: &agent.ResultEvent{CallID: c.CallID, Name: c.Name, Ref: c.Ref,
				Summary: firstLine(c.Result), Failed: c.Failed, Skipped: c.Skipped, DurationMS: c.DurationMS,
				Display: tools.Display{Kind: tools.KindText, Text: c.Result}}}))
		for _, ch := range m.Charts {
			if ch.CallID == c.CallID {
				out = append(out, ev(agent.Event{Type: agent.ChartMade, Step: step, Chart: &agent.ChartEvent{CallID: ch.CallID, Ref: ch.Ref, SQL: ch.SQL,
					Chart: &tools.Chart{Title: ch.Title, Spec: ch.Spec, Mark: ch.Mark, Rows: ch.Rows}}}))
			}
		}
	}
	if m.Content != "" {
		step++
		out = append(out, ev(agent.Event{Type: agent.StepStarted, Step: step}), ev(agent.Event{Type: agent.TextDelta, Step: step, Text: m.Content}))
	}
	if m.Status != store.Generating {
		out = append(out, ev(agent.Event{Type: agent.RunFinished}))
	}
	return out
}

// outcomeOf is the outcome of an answer stored without one.
func outcomeOf(m store.Message) *agent.Outcome {
	out := &agent.Outcome{RunID: m.RunID, Reason: m.Error, Meta: agent.Meta{Steps: m.Steps, ToolCalls: len(m.ToolCalls),
		PromptTokens: m.PromptTokens, CompletionTokens: m.CompletionTokens, DurationMS: m.DurationMS, Model: m.Model, Provider: m.Provider}}
	switch m.Status {
	case store.Complete:
		out.Status, out.Answer, out.Summary = agent.Done, m.Content, m.Content
	case store.NeedsInput:
		out.Status = agent.NeedsInput
	case store.Interrupted:
		out.Status = agent.Canceled
	default:
		out.Status = agent.Failed
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
