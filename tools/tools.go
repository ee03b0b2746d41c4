// Package tools is the contract between the agent and what it can do: a
// tool has a Spec the model reads and a Run that takes the model's JSON
// arguments. Each tool lives in its own subpackage; this package imports
// none of them and nothing from the agent.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
)

// Spec is what the model is told about a tool.
type Spec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON Schema of the arguments object
}

// Tool is one capability offered to the model. Implementations are safe for
// concurrent use.
type Tool interface {
	Spec() Spec
	// Run executes the tool with args, a JSON object. A failure the model
	// can fix (bad SQL, unknown column, timeout, invalid arguments) is a
	// Result with Failed set and a ForModel text saying what went wrong and
	// how to fix it — not an error. An empty result is not a failure, but
	// its ForModel text must say plainly that there were no rows. Errors are for failures
	// the model cannot fix (the workspace is gone, the disk is full) and for
	// ctx ending (ctx.Err()).
	Run(ctx context.Context, args json.RawMessage) (Result, error)
}

// Result is dual: compact text for the model, a payload for the UI.
type Result struct {
	// ForModel is what the model reads: a capped preview (a few dozen rows,
	// a few KB, with "N more rows" said plainly), or what went wrong and how
	// to fix it.
	ForModel string `json:"for_model"`
	// Summary is one short line for the trace ("42 rows", "unknown column
	// \"regoin\"").
	Summary string `json:"summary"`
	// Display is what the UI shows.
	Display Display `json:"display"`
	// Failed marks a failure the model can fix; the agent counts them.
	Failed bool `json:"failed,omitempty"`
	// EndTurn ends the run waiting for the user (ask_user).
	EndTurn bool `json:"end_turn,omitempty"`
}

// Display kinds.
const (
	KindText     = "text"
	KindTable    = "table"
	KindChart    = "chart"
	KindQuestion = "question"
	KindProfile  = "profile"
	KindVerdict  = "verdict"
	KindError    = "error"
)

// Display is the UI payload of a result. Kind says which fields are set.
// Large data never travels here whole: tables carry a reference the UI
// pages through.
type Display struct {
	Kind     string          `json:"kind"`
	Text     string          `json:"text,omitempty"`
	SQL      string          `json:"sql,omitempty"` // the query behind a table, chart or verdict
	Table    *Table          `json:"table,omitempty"`
	Chart    *Chart          `json:"chart,omitempty"`
	Question *Question       `json:"question,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"` // tool-specific structure (profile, verdict)
}

// Column is a result column.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Table is a query result held behind Ref.
type Table struct {
	Ref       string   `json:"ref"` // pages are fetched by this reference
	Columns   []Column `json:"columns"`
	Rows      int64    `json:"rows"`      // total rows of the query
	Kept      int64    `json:"kept"`      // rows held behind Ref (≤ Rows)
	Truncated bool     `json:"truncated"` // Kept < Rows
	Preview   [][]any  `json:"preview"`   // the first rows, JSON-ready
}

// Chart is a Vega-Lite chart with its data inlined.
type Chart struct {
	Title string          `json:"title"`
	Spec  json.RawMessage `json:"spec"` // Vega-Lite, data.values injected
	Mark  string          `json:"mark"` // bar, line, area, point, arc, rect…
	Rows  int             `json:"rows"` // data rows injected
}

// Question is a clarifying question for the user.
type Question struct {
	Text    string   `json:"text"`
	Options []string `json:"options,omitempty"`
}

// Set is the tools offered in one run, by name.
type Set struct {
	byName map[string]Tool
	order  []string
}

// NewSet returns a set of ts; names must be unique.
func NewSet(ts ...Tool) (*Set, error) {
	s := &Set{byName: map[string]Tool{}}
	for _, t := range ts {
		n := t.Spec().Name
		if _, dup := s.byName[n]; dup {
			return nil, fmt.Errorf("tool %q registered twice", n)
		}
		s.byName[n] = t
		s.order = append(s.order, n)
	}
	return s, nil
}

// Get returns the tool called name.
func (s *Set) Get(name string) (Tool, bool) {
	t, ok := s.byName[name]
	return t, ok
}

// Specs returns the specs in registration order.
func (s *Set) Specs() []Spec {
	out := make([]Spec, 0, len(s.order))
	for _, n := range s.order {
		out = append(out, s.byName[n].Spec())
	}
	return out
}

// Names returns the tool names, sorted.
func (s *Set) Names() []string {
	out := append([]string(nil), s.order...)
	sort.Strings(out)
	return out
}

type chatKey struct{}

// WithChat returns ctx carrying the id of the conversation a run answers
// in. Tools that keep something per conversation read it with ChatFrom:
// find_prior_query ranks that conversation's queries first, run_python
// files its outputs under it.
func WithChat(ctx context.Context, chat string) context.Context {
	return context.WithValue(ctx, chatKey{}, chat)
}

// ChatFrom returns the conversation id WithChat put in ctx, or "".
func ChatFrom(ctx context.Context) string {
	c, _ := ctx.Value(chatKey{}).(string)
	return c
}
