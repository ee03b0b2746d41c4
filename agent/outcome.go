package agent

import (
	"github.com/loupeapp/loupe/agent/evidence"
	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/tools"
)

// Outcome is what a run produced. It is complete whatever the status: a
// canceled or failed run still has a valid transcript.
type Outcome struct {
	RunID  string `json:"run_id"`
	Status Status `json:"status"`
	// Reason says why a run stopped early (limit, failure, cancel), in
	// plain words with what to do; empty when Done.
	Reason string `json:"reason,omitempty"`
	// Answer is the model's final text as written (reasoning removed).
	Answer string `json:"answer,omitempty"`
	// Written is, at the schema privacy level, the answer as the model
	// wrote it, with value references ({{q2.total[0]}}) where Answer has
	// the values: what a follow-up sends back to the model.
	Written string `json:"written,omitempty"`
	// Summary and Findings are parsed from Answer.
	Summary  string    `json:"summary,omitempty"`
	Findings []Finding `json:"findings,omitempty"`
	// Numbers are the answer's numbers checked against the run's tool
	// results; those nothing backs are marked evidence.Mark in Answer,
	// Summary and Findings.
	Numbers  []evidence.Check `json:"numbers,omitempty"`
	Question *tools.Question  `json:"question,omitempty"` // NeedsInput only
	// Evidence is every query and chart the run made, by ref.
	Evidence []Evidence `json:"evidence,omitempty"`
	// Transcript is the conversation of this run after the system prompt:
	// the user's question, assistant turns and tool results. Every tool call
	// in it has a result, so it can be sent to a model again.
	Transcript []llm.Message `json:"transcript,omitempty"`
	Meta       Meta          `json:"meta"`
}

// Finding is one claim of the answer and the evidence refs backing it.
type Finding struct {
	Text     string   `json:"text"`
	Evidence []string `json:"evidence,omitempty"` // refs into Outcome.Evidence
}

// Evidence is a query or chart a finding can point at.
type Evidence struct {
	Ref     string         `json:"ref"` // "q1", "c1"
	CallID  string         `json:"call_id"`
	Tool    string         `json:"tool"`
	Purpose string         `json:"purpose,omitempty"`
	SQL     string         `json:"sql,omitempty"`
	Summary string         `json:"summary"`
	Table   *tools.Table   `json:"table,omitempty"`
	Chart   *tools.Chart   `json:"chart,omitempty"`
	Display *tools.Display `json:"-"`
}

// Meta is the run's accounting.
type Meta struct {
	Steps            int        `json:"steps"`
	ToolCalls        int        `json:"tool_calls"`
	FailedCalls      int        `json:"failed_calls"`
	TextCalls        int        `json:"text_calls,omitempty"`    // tool calls recovered from the reply's text
	TextProtocol     bool       `json:"text_protocol,omitempty"` // the model took no native tools
	Unverified       int        `json:"unverified,omitempty"`    // numbers of the answer nothing backs (marked)
	Challenged       bool       `json:"challenged,omitempty"`    // the model was asked to back or withdraw numbers
	Compacted        int        `json:"compacted,omitempty"`     // messages compacted to fit the context
	SchemaOnly       bool       `json:"schema_only,omitempty"`   // run at the schema privacy level: the model saw no value
	PromptTokens     int        `json:"prompt_tokens"`
	CompletionTokens int        `json:"completion_tokens"`
	DurationMS       float64    `json:"duration_ms"`
	PromptChars      int        `json:"prompt_chars"`           // system prompt and the question's user turn
	PromptTokensEst  int        `json:"prompt_tokens_estimate"` // the same, estimated
	StepTimes        []StepTime `json:"step_times,omitempty"`
	ToolTimes        []ToolTime `json:"tool_times,omitempty"`
	Model            string     `json:"model,omitempty"`
	Provider         string     `json:"provider,omitempty"`
	// Notes are the caller's words on how the prompt was made (Input.Notes),
	// e.g. that table search fell back to text alone.
	Notes []string    `json:"notes,omitempty"`
	Usage []llm.Usage `json:"-"`
}

// StepTime is how long one model call took.
type StepTime struct {
	Step     int     `json:"step"`
	ModelMS  float64 `json:"model_ms"`
	ToolsMS  float64 `json:"tools_ms"`
	Prompt   int     `json:"prompt_tokens"`
	Complete int     `json:"completion_tokens"`
}

// ToolTime is how long one tool call took.
type ToolTime struct {
	Step   int     `json:"step"`
	CallID string  `json:"call_id"`
	Tool   string  `json:"tool"`
	MS     float64 `json:"ms"`
	Failed bool    `json:"failed,omitempty"`
}
