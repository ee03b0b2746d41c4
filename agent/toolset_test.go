package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/agent/llm"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/askuser"
	"github.com/loupeapp/loupe/tools/chart"
	"github.com/loupeapp/loupe/tools/profile"
	"github.com/loupeapp/loupe/tools/schema"
	"github.com/loupeapp/loupe/tools/search"
	"github.com/loupeapp/loupe/tools/sqltool"
	"github.com/loupeapp/loupe/tools/validate"
)

// workspaceSpecs are the specs of the tools a workspace run offers, in
// their registration order (app/assemble); the tools are never run here.
func workspaceSpecs() []tools.Spec {
	sql := sqltool.New(nil, nil, nil, sqltool.Config{})
	all := []tools.Tool{sql}
	all = append(all, schema.Tools(nil, sql)...)
	all = append(all, profile.New(nil, nil), chart.New(nil), validate.New(nil, nil), askuser.New())
	out := make([]tools.Spec, len(all))
	for i, t := range all {
		out[i] = t.Spec()
	}
	return out
}

// remoteSpecs are a connection's: no profile_data, no validate_finding,
// search_schema added.
func remoteSpecs() []tools.Spec {
	sql := sqltool.New(nil, nil, nil, sqltool.Config{})
	all := []tools.Tool{sql}
	all = append(all, schema.Tools(nil, sql)...)
	all = append(all, search.NewSchema(nil, nil), chart.New(nil), askuser.New())
	out := make([]tools.Spec, len(all))
	for i, t := range all {
		out[i] = t.Spec()
	}
	return out
}

// The steps of "How to work" as they were written by name in prompt.go
// before the tools carried them: the prompt a model reads is unchanged.
const (
	workspaceSteps = `## How to work
1. If the question is ambiguous (which measure, which period, which table or value) and the data does not settle it, call ask_user with one short question and options; do not guess.
2. When unsure of a table's columns or values, call describe_table before writing SQL.
3. Run focused queries with run_sql, read the results, refine.
4. When a tool reports an error, read the message and hint and fix the call; if the same approach fails repeatedly, try a different one.
5. When a trend, comparison or distribution is worth seeing, call create_chart with a Vega-Lite spec (no data) and the SQL for its data.
6. Check an important or surprising claim with validate_finding before stating it.
`
	remoteSteps = `## How to work
1. If the question is ambiguous (which measure, which period, which table or value) and the data does not settle it, call ask_user with one short question and options; do not guess.
2. When unsure of a table's columns or values, call describe_table before writing SQL.
3. Run focused queries with run_sql, read the results, refine.
4. When a tool reports an error, read the message and hint and fix the call; if the same approach fails repeatedly, try a different one.
5. When a trend, comparison or distribution is worth seeing, call create_chart with a Vega-Lite spec (no data) and the SQL for its data.
`
	noToolSteps = `## How to work
1. When a tool reports an error, read the message and hint and fix the call; if the same approach fails repeatedly, try a different one.
`
)

func TestHowToWorkFromSpecs(t *testing.T) {
	cases := []struct {
		name  string
		specs []tools.Spec
		want  string
	}{
		{"workspace", workspaceSpecs(), workspaceSteps},
		{"connection", remoteSpecs(), remoteSteps},
		{"no tools", nil, noToolSteps},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := systemPrompt(Schema{}, promptOptions{maxSteps: 15, tools: newCatalog(c.specs)})
			i, j := strings.Index(p, "## How to work"), strings.Index(p, "\n## Honesty")
			if i < 0 || j < i {
				t.Fatalf("no How to work section in:\n%s", p)
			}
			if got := p[i:j]; got != c.want {
				t.Errorf("How to work =\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// The prompt's line about tables it does not describe names the tool that
// lists them by its role in the specs, and none when there is none.
func TestUndescribedTablesNameTheListingTool(t *testing.T) {
	for _, c := range []struct {
		name  string
		specs []tools.Spec
		want  string
	}{
		{"workspace", workspaceSpecs(), "3 more table(s) exist; call list_datasets to see them.\n"},
		{"only ask_user", []tools.Spec{askuser.New().Spec()}, "3 more table(s) exist.\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := questionTurn(Schema{Others: 3}, promptOptions{maxSteps: 15, tools: newCatalog(c.specs)}, nil, "q")
			if !strings.Contains(p, c.want) {
				t.Errorf("prompt lacks %q:\n%s", c.want, p)
			}
		})
	}
}

// A tool registered in any order still takes its stage's place.
func TestGuidanceOrderIsByStage(t *testing.T) {
	specs := workspaceSpecs()
	reversed := make([]tools.Spec, len(specs))
	for i, s := range specs {
		reversed[len(specs)-1-i] = s
	}
	p := systemPrompt(Schema{}, promptOptions{maxSteps: 15, tools: newCatalog(reversed)})
	if !strings.Contains(p, workspaceSteps) {
		t.Errorf("reversed registration changed the steps:\n%s", p)
	}
}

// A new tool's aliases, example and one required argument come from its
// Spec: nothing in agent/ or agent/calls names it.
func TestCallReaderLearnsANewToolFromItsSpec(t *testing.T) {
	newTool := tools.Spec{Name: "find_outliers", Aliases: []string{"outliers", "detect_anomalies"},
		Parameters: json.RawMessage(`{"type":"object","properties":{"column":{"type":"string"}},"required":["column"]}`),
		Example:    json.RawMessage(`{"table": "orders", "column": "amount"}`)}
	r := NewCallReader(append(workspaceSpecs(), newTool))
	cases := []struct {
		call, want string
	}{
		{"find_outliers", "find_outliers"},
		{"DetectAnomalies", "find_outliers"},
		{"functions.outliers", "find_outliers"},
		{"execute_sql", "run_sql"},
		{"plot", "create_chart"},
		{"ask_clarifying_question", "ask_user"},
		{"summarize", "profile_data"},
	}
	for _, c := range cases {
		name, _, _, failure := r.Resolve(llm.ToolCall{Name: c.call, Arguments: json.RawMessage(`{}`)})
		if name != c.want || failure != "" {
			t.Errorf("Resolve(%s) = %s (%s), want %s", c.call, name, failure, c.want)
		}
	}
	_, _, _, failure := r.Resolve(llm.ToolCall{Name: "outliers", Arguments: json.RawMessage(`{column: amount`)})
	if !strings.Contains(failure, `{"table": "orders", "column": "amount"}`) {
		t.Errorf("bad arguments are not answered with the tool's example: %s", failure)
	}
	// A call written as text with one bare value fills the one required argument.
	rd := r.Read(llm.Message{Role: llm.Assistant, Content: `find_outliers("amount")`})
	if len(rd.Message.ToolCalls) != 1 || string(rd.Message.ToolCalls[0].Arguments) != `{"column":"amount"}` {
		t.Errorf("text call read as %+v", rd.Message.ToolCalls)
	}
	// Without the tool, its alias means nothing.
	if name, _, _, failure := NewCallReader(workspaceSpecs()).Resolve(llm.ToolCall{Name: "detect_anomalies"}); failure == "" {
		t.Errorf("detect_anomalies resolved to %s without find_outliers in the set", name)
	}
}

func TestFormatHintNamesTheQueryTool(t *testing.T) {
	r := &run{reader: NewCallReader(workspaceSpecs())}
	want := `{"name": "run_sql", "arguments": {"sql": "SELECT region, count(*) FROM orders GROUP BY region"}}`
	if h := r.formatHint(); !strings.Contains(h, want) {
		t.Errorf("formatHint = %s, want it to show %s", h, want)
	}
}

func TestEvidenceOf(t *testing.T) {
	table := tools.Display{Kind: tools.KindTable, Table: &tools.Table{Ref: "r1"}}
	chart := tools.Display{Kind: tools.KindChart, Chart: &tools.Chart{Mark: "bar"}}
	text := tools.Display{Kind: tools.KindText, Text: "no rows: no chart"}
	profile := tools.Display{Kind: tools.KindProfile}
	cases := []struct {
		name     string
		declared tools.Evidence
		d        tools.Display
		want     tools.Evidence
	}{
		{"query tool, table", tools.EvidenceQuery, table, tools.EvidenceQuery},
		{"query tool, profile", tools.EvidenceQuery, profile, tools.EvidenceQuery},
		{"query tool, text", tools.EvidenceQuery, text, tools.EvidenceNone},
		{"chart tool, chart", tools.EvidenceChart, chart, tools.EvidenceChart},
		{"chart tool, no chart drawn", tools.EvidenceChart, text, tools.EvidenceNone},
		{"chart tool, a table is not a chart", tools.EvidenceChart, table, tools.EvidenceNone},
		{"none: a table from a lookup is not cited", tools.EvidenceNone, table, tools.EvidenceNone},
		{"by kind, table", tools.EvidenceByKind, table, tools.EvidenceQuery},
		{"by kind, chart", tools.EvidenceByKind, chart, tools.EvidenceChart},
		{"by kind, text", tools.EvidenceByKind, text, tools.EvidenceNone},
	}
	for _, c := range cases {
		if got := evidenceOf(c.declared, c.d); got != c.want {
			t.Errorf("%s: evidenceOf = %q, want %q", c.name, got, c.want)
		}
	}
}

// Every tool of the standard sets says how it is shown and what it is
// cited as, and no two claim the same name.
func TestStandardSpecsAreComplete(t *testing.T) {
	specs := append(workspaceSpecs(), search.NewSchema(nil, nil).Spec(), search.NewPrior(nil, nil).Spec())
	ts := make([]tools.Tool, len(specs))
	for i, s := range specs {
		ts[i] = specTool(s)
	}
	if _, err := tools.NewSet(ts...); err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		if s.View.Icon == "" || s.View.Doing == "" || s.View.Did == "" {
			t.Errorf("%s: incomplete view %+v", s.Name, s.View)
		}
		if s.Evidence == tools.EvidenceByKind {
			t.Errorf("%s: does not say what its results are cited as", s.Name)
		}
		if len(s.Example) > 0 && !json.Valid(s.Example) {
			t.Errorf("%s: example is not JSON: %s", s.Name, s.Example)
		}
	}
}

type specTool tools.Spec

func (s specTool) Spec() tools.Spec { return tools.Spec(s) }
func (specTool) Run(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{}, nil
}

var _ tools.Tool = specTool{}

// A trace recorded before calls carried their view gets it from the
// specs, under the name the model wrote.
func TestWithViews(t *testing.T) {
	evs := []Event{
		{Type: ToolCalled, Call: &CallEvent{ID: "1", Name: "run_sql"}},
		{Type: ToolCalled, Call: &CallEvent{ID: "2", Name: "execute_sql"}},
		{Type: ToolCalled, Call: &CallEvent{ID: "3", Name: "fly"}},
		{Type: ToolCalled, Call: &CallEvent{ID: "4", Name: "run_sql", View: &tools.View{Did: "kept"}}},
		{Type: TextDelta, Text: "x"},
	}
	WithViews(evs, workspaceSpecs())
	want := []string{"Ran a query", "Ran a query", "", "kept"}
	for i, w := range want {
		got := ""
		if v := evs[i].Call.View; v != nil {
			got = v.Did
		}
		if got != w {
			t.Errorf("call %s: view %q, want %q", evs[i].Call.Name, got, w)
		}
	}
}
