// Package validate is the validate_finding tool: it re-runs the query
// behind a finding and checks what can be checked mechanically — the rows
// behind each group, NULLs, outliers, and whether a comparison between
// groups holds within the largest subgroups of another column (Simpson's
// paradox) — and returns a verdict with its reasons.
package validate

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/tools"
	targs "github.com/loupeapp/loupe/tools/args"
)

// Name is the tool's name as the model calls it.
const Name = "validate_finding"

// Runner runs one guarded, read-only query (data/query.Runner).
type Runner interface {
	Run(ctx context.Context, sql string, lim query.Limits) (*query.Result, error)
}

// Catalog lists the loaded datasets (data/workspace.Workspace). It is used
// to pick subgroup columns when the model names none.
type Catalog interface {
	Datasets(ctx context.Context) ([]catalog.Dataset, error)
}

// Tool is validate_finding.
type Tool struct {
	run Runner
	cat Catalog
	log *slog.Logger

	mu   sync.Mutex
	aggs map[string]bool // DuckDB's aggregate function names
}

var _ tools.Tool = (*Tool)(nil)

// New returns the tool; cat may be nil (no automatic subgroup columns).
func New(cat Catalog, run Runner) *Tool {
	return &Tool{run: run, cat: cat, log: slog.Default().With("subsystem", "validate")}
}

const description = `Check a finding before you report it. Re-runs the query behind it and checks: rows behind each group (small samples), NULLs and outliers in the result, and — for a comparison between groups — whether the comparison still holds within the largest subgroups of other columns (Simpson's paradox). Returns a verdict: supported, weak, contradicted or cannot_check, with reasons.
Write the sql as a plain aggregate over the data, one row per group: SELECT treatment, avg(recovered) AS recovery_rate FROM patients GROUP BY treatment. Name likely confounders in group_by (e.g. ["severity"]); without it, the tables' low-cardinality columns are tried.`

var params = targs.Params{Tool: Name, IgnoreUnknown: true, List: []targs.Param{
	{Name: "finding", Type: targs.String, Required: true, Doc: `the finding in one sentence, e.g. "Treatment A has a higher recovery rate than B"`, Aliases: []string{"claim", "statement", "insight"}},
	{Name: "sql", Type: targs.String, Required: true, Doc: "the query whose result supports the finding: one SELECT, one row per group", Aliases: []string{"query", "sql_query", "related_query", "relatedQuery"}},
	{Name: "group_by", Type: targs.Strings, Doc: "columns of the query's tables that could confound the comparison (e.g. region, segment, severity); default: their low-cardinality columns", Aliases: []string{"groupby", "confounders", "confounder", "subgroups"}},
	{Name: "measure", Type: targs.String, Doc: "result column the finding is about; default: the first numeric column that is not a group, a count or an id", Aliases: []string{"metric"}},
	{Name: "compare", Type: targs.Strings, Doc: `the two groups compared, e.g. ["A", "B"]; default: the two the finding names, else the highest and lowest`, Aliases: []string{"groups"}},
}}

// Spec describes the tool to the model.
func (t *Tool) Spec() tools.Spec {
	return tools.Spec{Name: Name, Description: description, Parameters: params.Schema(),
		Guidance: tools.Guidance{Stage: tools.StageCheck, Text: "Check an important or surprising claim with validate_finding before stating it."},
		Aliases:  []string{"validate", "validateanalysis", "check"},
		Evidence: tools.EvidenceQuery,
		View:     tools.View{Icon: "check", Doing: "Checking a finding", Did: "Checked a finding"},
	}
}

// args are validate_finding's arguments once decoded.
type args struct {
	Finding string   `json:"finding"`
	SQL     string   `json:"sql"`
	GroupBy []string `json:"group_by"`
	Measure string   `json:"measure"`
	Compare []string `json:"compare"`
}

// decodeArgs reads the arguments leniently (see tools/args); lists may
// also come as comma-separated strings.
func decodeArgs(raw json.RawMessage) (args, error) {
	var a args
	if err := params.Decode(raw, &a); err != nil {
		return args{}, err
	}
	a.Finding, a.SQL, a.Measure = strings.TrimSpace(a.Finding), strings.TrimSpace(a.SQL), strings.TrimSpace(a.Measure)
	a.GroupBy, a.Compare = split(a.GroupBy), split(a.Compare)
	if len(a.Compare) != 0 && len(a.Compare) != 2 {
		return args{}, &targs.Error{Problem: `"compare" must name exactly two groups`, Usage: params.Usage()}
	}
	return a, nil
}

func split(l []string) []string {
	var out []string
	for _, v := range l {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// Run re-runs the query and checks the finding. A query that fails, or
// arguments that do not fit its result, come back as Failed.
func (t *Tool) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	a, err := decodeArgs(raw)
	if err != nil {
		return params.Failure(err), nil
	}
	v, problem, err := t.validate(ctx, a)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		msg, ok := tools.QueryProblem(err)
		if !ok {
			return tools.Result{}, fmt.Errorf("validate finding: %w", err)
		}
		return tools.Failed("The finding's SQL failed: "+msg, "SQL error", a.SQL), nil
	}
	if problem != "" {
		return tools.Failed(problem, "cannot validate", a.SQL), nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return tools.Result{}, fmt.Errorf("encode verdict: %w", err)
	}
	return tools.Result{
		ForModel: v.text(),
		Summary:  v.Verdict + ": " + firstReason(v),
		Display:  tools.Display{Kind: tools.KindVerdict, SQL: a.SQL, Data: data},
	}, nil
}

func firstReason(v *Verdict) string {
	if len(v.Reasons) == 0 {
		return ""
	}
	r := v.Reasons[0]
	if len([]rune(r)) > 100 {
		r = string([]rune(r)[:100]) + "…"
	}
	return r
}
