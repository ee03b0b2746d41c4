package agent

import (
	"encoding/json"
	"time"

	"github.com/loupeapp/loupe/agent/evidence"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/tools"
)

// EventType names an event. The set is stable: the UI and `loupe ask
// --json` consumers switch on it.
type EventType string

const (
	RunStarted    EventType = "run_started"
	StepStarted   EventType = "step_started"
	TextDelta     EventType = "text_delta"     // a piece of the model's visible text
	ThinkingDelta EventType = "thinking_delta" // a piece of reasoning; never part of the answer
	TextReset     EventType = "text_reset"     // discard this step's streamed text (the provider retried)
	ToolCalled    EventType = "tool_call"
	ToolResult    EventType = "tool_result"
	ChartMade     EventType = "chart"
	QuestionAsked EventType = "question"
	UsageReported EventType = "usage"
	// NumbersChecked reports the numbers of an answer checked against the
	// run's tool results; the challenge, if any, is sent back to the model.
	NumbersChecked EventType = "numbers_checked"
	RunFinished    EventType = "run_finished" // exactly once per run, always last
)

// Status is how a run ended.
type Status string

const (
	Done       Status = "done"
	NeedsInput Status = "needs_input" // the agent asked the user a question
	Canceled   Status = "canceled"
	Failed     Status = "failed"
	Limit      Status = "limit" // step, time or token limit
)

// Event is one thing that happened in a run. Type says which of the
// optional fields are set.
type Event struct {
	Type   EventType `json:"type"`
	RunID  string    `json:"run_id"`
	ChatID string    `json:"chat_id,omitempty"`
	Step   int       `json:"step,omitempty"`
	At     time.Time `json:"at"`

	Text     string          `json:"text,omitempty"` // deltas
	Call     *CallEvent      `json:"call,omitempty"`
	Result   *ResultEvent    `json:"result,omitempty"`
	Chart    *ChartEvent     `json:"chart,omitempty"`
	Question *tools.Question `json:"question,omitempty"`
	Usage    *llm.Usage      `json:"usage,omitempty"` // this step's usage
	Finished *Outcome        `json:"finished,omitempty"`
	Numbers  *NumbersEvent   `json:"numbers,omitempty"`
}

// NumbersEvent is the check of one answer's numbers.
type NumbersEvent struct {
	Checks []evidence.Check `json:"checks"`
	// Challenged is true when the model was asked to back or withdraw the
	// unbacked numbers (once per run); false on the answer the user gets.
	Challenged bool `json:"challenged,omitempty"`
}

// CallEvent is a tool call as the model made it, with how the trace shows
// the tool it was matched to (its Spec's View; nil for an unknown tool or
// one that says nothing).
type CallEvent struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	View      *tools.View     `json:"view,omitempty"`
}

// ResultEvent is a tool call's result: a one-line summary and the display
// payload (which references large data rather than holding it).
type ResultEvent struct {
	CallID     string        `json:"call_id"`
	Name       string        `json:"name"`
	Ref        string        `json:"ref,omitempty"` // evidence reference ("q2", "c1") findings cite
	Summary    string        `json:"summary"`
	Failed     bool          `json:"failed,omitempty"`
	Skipped    bool          `json:"skipped,omitempty"` // not run: canceled, limit, or the turn ended
	Display    tools.Display `json:"display"`
	DurationMS float64       `json:"duration_ms"`
}

// ChartEvent is a chart ready to render.
type ChartEvent struct {
	CallID string       `json:"call_id"`
	Ref    string       `json:"ref"`
	SQL    string       `json:"sql,omitempty"`
	Chart  *tools.Chart `json:"chart"`
}

// Sink receives a run's events in order, from the run's goroutine. It must
// not block for long: slow consumers should buffer.
type Sink interface {
	Emit(Event)
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(Event)

// Emit calls f(e).
func (f SinkFunc) Emit(e Event) { f(e) }

var _ Sink = SinkFunc(nil)

// Discard is a Sink that drops every event.
var Discard Sink = SinkFunc(func(Event) {})
