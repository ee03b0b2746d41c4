package schema

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/args"
)

// Sample sizes.
const (
	DefaultSample = 10
	MaxSample     = 20
)

// SampleRows is sample_rows.
type SampleRows struct {
	cat  Catalog
	exec Executor
}

var _ tools.Tool = (*SampleRows)(nil)

// NewSampleRows returns sample_rows: it checks the table against cat and
// runs the query through exec.
func NewSampleRows(cat Catalog, exec Executor) *SampleRows { return &SampleRows{cat: cat, exec: exec} }

var sampleParams = args.Params{Tool: "sample_rows", List: []args.Param{
	{Name: "table", Type: args.String, Required: true, Doc: "dataset name", Aliases: []string{"table_name", "name", "dataset"}},
	{Name: "n", Type: args.Integer, Doc: fmt.Sprintf("rows to show, 1 to %d (default %d)", MaxSample, DefaultSample), Aliases: []string{"limit", "rows", "count"}},
	{Name: "where", Type: args.String, Doc: "optional SQL condition, e.g. status = 'open'", Aliases: []string{"filter", "condition"}},
}}

// Spec describes sample_rows to the model.
func (t *SampleRows) Spec() tools.Spec {
	return tools.Spec{
		Name:        "sample_rows",
		Description: fmt.Sprintf("Show the first rows of a dataset (at most %d), optionally only rows matching a SQL condition.", MaxSample),
		Parameters:  sampleParams.Schema(),
		Aliases:     []string{"sample", "head", "preview", "samplerows"},
		Example:     json.RawMessage(`{"table": "orders"}`),
		Evidence:    tools.EvidenceQuery,
		View:        tools.View{Icon: "eye", Doing: "Sampling rows[ of {table}]", Did: "Sampled rows[ of {table}]"},
	}
}

var reWhere = regexp.MustCompile(`(?i)^\s*where\s+`)

// Run shows rows of the table in args ({"table": …, "n": …, "where": …}).
func (t *SampleRows) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Table string `json:"table"`
		N     int    `json:"n"`
		Where string `json:"where"`
	}
	if err := sampleParams.Decode(raw, &a); err != nil {
		return sampleParams.Failure(err), nil
	}
	d, fail, err := find(ctx, t.cat, a.Table)
	if err != nil {
		return tools.Result{}, fmt.Errorf("sample_rows: %w", err)
	}
	if fail != nil {
		return *fail, nil
	}
	note := ""
	switch {
	case a.N <= 0:
		a.N = DefaultSample
	case a.N > MaxSample:
		note = fmt.Sprintf("\n(n is capped at %d.)", MaxSample)
		a.N = MaxSample
	}
	q := "SELECT * FROM " + duck.QuoteIdent(d.Name)
	if w := strings.TrimSpace(strings.TrimRight(reWhere.ReplaceAllString(a.Where, ""), "; \n")); w != "" {
		q += " WHERE (" + w + ")"
	}
	q += fmt.Sprintf(" LIMIT %d", a.N)
	r, err := t.exec.Execute(ctx, q, "sample of "+d.Name, a.N)
	if err != nil {
		return tools.Result{}, fmt.Errorf("sample_rows: %w", err)
	}
	r.ForModel += note
	return r, nil
}
