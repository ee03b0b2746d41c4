// Package validate is the validate_finding tool: it re-runs the query
// behind a finding and checks what can be checked mechanically — the rows
// behind each group, NULLs, outliers, and whether a comparison between
// groups holds within the largest subgroups of another column (Simpson's
// paradox) — and returns a verdict with its reasons.
package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/tools"
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

var parameters = json.RawMessage(`{
  "type": "object",
  "properties": {
    "finding": {"type": "string", "description": "The finding in one sentence, e.g. \"Treatment A has a higher recovery rate than B\""},
    "sql": {"type": "string", "description": "The query whose result supports the finding: one SELECT, one row per group"},
    "group_by": {"type": "array", "items": {"type": "string"}, "description": "Columns of the query's tables that could confound the comparison (e.g. region, segment, severity)"},
    "measure": {"type": "string", "description": "Result column the finding is about; default: the first numeric column that is not a group or a count"},
    "compare": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2, "description": "The two groups compared, e.g. [\"A\", \"B\"]; default: those named in the finding, else the highest and lowest"}
  },
  "required": ["finding", "sql"]
}`)

// Spec describes the tool to the model.
func (t *Tool) Spec() tools.Spec {
	return tools.Spec{Name: Name, Description: description, Parameters: parameters}
}

// args are validate_finding's arguments once decoded.
type args struct {
	Finding string
	SQL     string
	GroupBy []string
	Measure string
	Compare []string
}

const wantArgs = `validate_finding needs {"finding": string, "sql": string, "group_by": [string] (optional), "measure": string (optional), "compare": [string, string] (optional)}`

func decodeArgs(raw json.RawMessage) (args, string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return args{}, wantArgs + ": " + err.Error()
		}
		raw = []byte(s)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return args{}, wantArgs + ": the arguments are not a JSON object"
	}
	var a args
	a.Finding = strings.TrimSpace(str(m, "finding", "claim", "statement"))
	a.SQL = strings.TrimSpace(str(m, "sql", "query", "related_query", "relatedQuery"))
	a.Measure = strings.TrimSpace(str(m, "measure", "metric"))
	var missing []string
	if a.Finding == "" {
		missing = append(missing, `"finding"`)
	}
	if a.SQL == "" {
		missing = append(missing, `"sql"`)
	}
	if len(missing) > 0 {
		return args{}, wantArgs + ": missing " + strings.Join(missing, " and ")
	}
	var ok bool
	if a.GroupBy, ok = list(m, "group_by", "groupBy", "confounders"); !ok {
		return args{}, wantArgs + `: "group_by" must be a list of column names`
	}
	if a.Compare, ok = list(m, "compare"); !ok || len(a.Compare) != 0 && len(a.Compare) != 2 {
		return args{}, wantArgs + `: "compare" must name exactly two groups`
	}
	return a, ""
}

func str(m map[string]json.RawMessage, keys ...string) string {
	for _, k := range keys {
		var s string
		if json.Unmarshal(m[k], &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// list reads a list of strings, a comma-separated string, or nothing.
func list(m map[string]json.RawMessage, keys ...string) ([]string, bool) {
	for _, k := range keys {
		raw := bytes.TrimSpace(m[k])
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		var l []any
		var one string
		switch {
		case json.Unmarshal(raw, &l) == nil:
		case json.Unmarshal(raw, &one) == nil:
			for _, s := range strings.Split(one, ",") {
				l = append(l, s)
			}
		default:
			return nil, false
		}
		var out []string
		for _, v := range l {
			if s := strings.TrimSpace(fmt.Sprint(v)); s != "" && v != nil {
				out = append(out, s)
			}
		}
		return out, true
	}
	return nil, true
}

// Run re-runs the query and checks the finding. A query that fails, or
// arguments that do not fit its result, come back as Failed.
func (t *Tool) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	a, problem := decodeArgs(raw)
	if problem != "" {
		return failed(problem, "invalid arguments", ""), nil
	}
	v, problem, err := t.validate(ctx, a)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		msg, ok := queryProblem(err)
		if !ok {
			return tools.Result{}, fmt.Errorf("validate finding: %w", err)
		}
		return failed("The finding's SQL failed: "+msg, "SQL error", a.SQL), nil
	}
	if problem != "" {
		return failed(problem, "cannot validate", a.SQL), nil
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

func failed(msg, summary, sql string) tools.Result {
	return tools.Result{
		ForModel: msg,
		Summary:  summary,
		Display:  tools.Display{Kind: tools.KindError, Text: msg, SQL: sql},
		Failed:   true,
	}
}

// queryProblem returns the message of a query failure the model can fix
// and true, or false for an infrastructure failure.
func queryProblem(err error) (string, bool) {
	var refused *guard.RefusedError
	var timeout *query.TimeoutError
	var de *duckdb.Error
	switch {
	case errors.As(err, &refused), errors.Is(err, guard.ErrEmpty), errors.As(err, &timeout):
		return err.Error(), true
	case errors.As(err, &de):
		return de.Error(), true
	}
	return "", false
}
