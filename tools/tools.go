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

// Spec is everything known about a tool: what the model is told (Name,
// Description, Parameters, Guidance), how a call written loosely is read
// (Aliases, Example), what its results count as (Evidence, SchemaLevel)
// and how the trace shows it (View). The agent and the UI learn a tool
// from its Spec alone; nothing else switches on a tool's name.
type Spec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON Schema of the arguments object

	// Guidance is the tool's step in the system prompt's "How to work";
	// zero for none.
	Guidance Guidance `json:"guidance,omitzero"`
	// Aliases are other names models call the tool by, squashed
	// (lower case, no separators): "executesql", "plot".
	Aliases []string `json:"aliases,omitempty"`
	// Example is an arguments object shown to a model whose call could
	// not be read; nil for a generic one.
	Example json.RawMessage `json:"example,omitempty"`
	// Evidence is what a successful result counts as for the answer's
	// citations.
	Evidence Evidence `json:"evidence,omitempty"`
	// SchemaLevel is what the model may read of a result at the schema
	// privacy level; empty decides by the result's display kind.
	SchemaLevel SchemaLevel `json:"schema_level,omitempty"`
	// View is how the trace shows a call.
	View View `json:"view"`
}

// Stage orders the steps of "How to work": a tool's guidance comes with
// its stage's, in registration order; the general advice on failed calls
// comes after the Query stage.
type Stage int

// Stages, in the order of the work.
const (
	StageClarify Stage = iota + 1 // settle what is asked (ask_user)
	StageExplore                  // learn the tables (describe_table)
	StageQuery                    // compute (run_sql)
	StagePresent                  // show (create_chart)
	StageCheck                    // check before stating (validate_finding)
)

// Guidance is one numbered step of the system prompt.
type Guidance struct {
	Stage Stage  `json:"stage"`
	Text  string `json:"text"`
}

// Evidence is what a successful result counts as for citations.
type Evidence string

const (
	// EvidenceByKind (the default) decides by the display kind: a table,
	// profile or verdict is a query, a chart a chart, anything else none.
	EvidenceByKind Evidence = ""
	// EvidenceNone: the result is not cited (schema lookups, questions).
	EvidenceNone Evidence = "none"
	// EvidenceQuery: a computed result, cited as q1, q2…, whenever it
	// shows something (a table, a profile, a verdict; not text).
	EvidenceQuery Evidence = "query"
	// EvidenceChart: a chart, cited as c1, c2…, when one was drawn.
	EvidenceChart Evidence = "chart"
)

// SchemaLevel says what of a result the model reads at the schema privacy
// level, where no value of the data may reach it.
type SchemaLevel string

const (
	// SchemaByKind (the default) decides by the display kind: a table's
	// shape, a chart's mark, or only the fact that the tool ran.
	SchemaByKind SchemaLevel = ""
	// SchemaStructure: the output is names and counts only and is sent as
	// is (list_datasets, ask_user).
	SchemaStructure SchemaLevel = "structure"
	// SchemaDescribe: the agent answers from the schema it holds, without
	// values, for the table named in the call (describe_table).
	SchemaDescribe SchemaLevel = "describe"
)

// View is how the trace shows a call of the tool. Doing and Did may hold
// "{arg}", the call's argument arg (the UI reads {table} from table,
// table_name, dataset or name), inside an optional part in [brackets]
// that is dropped when the argument is missing: "Sampled rows[ of
// {table}]". The zero View shows the tool by its name and its result's
// display kind. What a result looks like is its display kind's, drawn by
// the UI's one registry of kinds (frontend/src/components/chat/displays.tsx).
type View struct {
	Icon  string `json:"icon,omitempty"`  // an icon name of the UI's set (table, chart, eye…)
	Doing string `json:"doing,omitempty"` // while running: "Running a query"
	Did   string `json:"did,omitempty"`   // when done: "Ran a query"
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
	// Edited says the user changed the chart by hand (type, fields or
	// spec); the chart the model drew is kept and can be shown again.
	Edited bool `json:"edited,omitempty"`
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

// NewSet returns a set of ts; names must be unique, and no alias may be
// another tool's name or alias.
func NewSet(ts ...Tool) (*Set, error) {
	s := &Set{byName: map[string]Tool{}}
	owner := map[string]string{} // alias or name → tool
	for _, t := range ts {
		spec := t.Spec()
		n := spec.Name
		if _, dup := s.byName[n]; dup {
			return nil, fmt.Errorf("tool %q registered twice", n)
		}
		for _, a := range append([]string{n}, spec.Aliases...) {
			if o, ok := owner[a]; ok && o != n {
				return nil, fmt.Errorf("tool %q: the name %q is already %q's", n, a, o)
			}
			owner[a] = n
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
