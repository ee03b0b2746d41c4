// Package outliers is the find_outliers tool: the values of one numeric
// column that lie outside Tukey's fences (IQR) or beyond a number of
// standard deviations (z-score), over a dataset or a SELECT, with how many
// lie below and above and the rows themselves. Both its queries go through
// the workspace's guarded, read-only runner with run_sql's limits; the rows
// are kept and shown the way run_sql shows a result.
package outliers

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/args"
)

// Name is the tool's name as the model calls it.
const Name = "find_outliers"

// Bounds of the arguments.
const (
	DefaultIQR  = 1.5 // Tukey's fences: Q1 − k·IQR, Q3 + k·IQR
	DefaultZ    = 3.0 // |value − mean| > z·sd
	DefaultRows = 200 // outlier rows kept for the user
	MaxRows     = 1000
	// minValues is the fewest non-NULL values outliers are judged on.
	minValues = 4
)

// Runner runs one guarded, read-only query (data/query.Runner).
type Runner interface {
	Run(ctx context.Context, sql string, lim query.Limits) (*query.Result, error)
}

// Catalog lists the loaded datasets (data/workspace.Workspace).
type Catalog interface {
	Datasets(ctx context.Context) ([]catalog.Dataset, error)
}

// Executor runs a query as run_sql does, keeping the result for the UI
// (tools/sqltool's *Tool).
type Executor interface {
	Execute(ctx context.Context, sql, purpose string, keepRows int) (tools.Result, error)
}

// Tool is find_outliers. It is safe for concurrent use.
type Tool struct {
	cat     Catalog
	run     Runner
	exec    Executor
	timeout time.Duration
}

var _ tools.Tool = (*Tool)(nil)

// New returns the tool: datasets from cat, statistics through run, the
// outlier rows through exec.
func New(cat Catalog, run Runner, exec Executor) *Tool {
	return &Tool{cat: cat, run: run, exec: exec, timeout: query.Defaults.Timeout}
}

var params = args.Params{Tool: Name, List: []args.Param{
	{Name: "column", Type: args.String, Required: true, Doc: "the numeric column to check", Aliases: []string{"field", "col", "measure"}},
	{Name: "table", Type: args.String, Doc: "the dataset, as listed; or give sql instead", Aliases: []string{"table_name", "dataset"}},
	{Name: "sql", Type: args.String, Doc: "a SELECT whose result holds the column, instead of a table (e.g. to filter first)", Aliases: []string{"query"}},
	{Name: "method", Type: args.String, Doc: `"iqr" (default: outside Q1 − k·IQR and Q3 + k·IQR) or "zscore" (more than k standard deviations from the mean)`},
	{Name: "k", Type: args.Number, Doc: fmt.Sprintf("how far out counts: default %g for iqr, %g for zscore", DefaultIQR, DefaultZ), Aliases: []string{"threshold", "z"}},
	{Name: "purpose", Type: args.String, Doc: "what you are looking for, in a few words", Aliases: []string{"reason"}},
}}

// Spec describes find_outliers.
func (t *Tool) Spec() tools.Spec {
	return tools.Spec{
		Name: Name,
		Description: "Find the unusual values of one numeric column of a dataset (or of a SELECT's result): " +
			"the bounds (IQR fences, or a z-score), how many values lie below and above them, and those rows, most extreme first. " +
			"Use it to find anomalies, errors or extreme cases instead of computing quartiles in SQL.",
		Parameters: params.Schema(),
		Aliases:    []string{"outliers", "detectoutliers", "findanomalies", "detectanomalies", "anomalies"},
		Example:    json.RawMessage(`{"table": "orders", "column": "amount"}`),
		Evidence:   tools.EvidenceQuery,
		View:       tools.View{Icon: "warning", Doing: "Looking for outliers[ in {table}]", Did: "Looked for outliers[ in {table}]"},
	}
}

type arguments struct {
	Column  string   `json:"column"`
	Table   string   `json:"table"`
	SQL     string   `json:"sql"`
	Method  string   `json:"method"`
	K       *float64 `json:"k"`
	Purpose string   `json:"purpose"`
}

// Run finds the outliers.
func (t *Tool) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a arguments
	if err := params.Decode(raw, &a); err != nil {
		return params.Failure(err), nil
	}
	m, problem := a.method()
	if problem != "" {
		return tools.Failed(problem, "invalid arguments", ""), nil
	}
	src, col, problem, err := t.source(ctx, a)
	if err != nil || problem != "" {
		return tools.Failed(problem, "invalid arguments", ""), err
	}
	st, res, err := t.stats(ctx, src, col, m)
	if err != nil || res.Failed {
		return res, err
	}
	if st.values < minValues {
		msg := fmt.Sprintf("%s has %d non-NULL values: too few to judge outliers (at least %d are needed).", col, st.values, minValues)
		return tools.Result{ForModel: msg, Summary: "too few values", Display: tools.Display{Kind: tools.KindText, Text: msg}}, nil
	}
	return t.rows(ctx, a, src, col, m, st)
}

// method is the rule the arguments ask for.
type method struct {
	name string  // "iqr" or "zscore"
	k    float64 // how far out counts
}

func (a arguments) method() (method, string) {
	switch strings.ToLower(strings.TrimSpace(a.Method)) {
	case "", "iqr", "tukey", "quartile", "quartiles":
		m := method{"iqr", DefaultIQR}
		if a.K != nil {
			m.k = *a.K
		}
		return m, m.checkK()
	case "zscore", "z", "z-score", "z_score", "stddev", "sd":
		m := method{"zscore", DefaultZ}
		if a.K != nil {
			m.k = *a.K
		}
		return m, m.checkK()
	}
	return method{}, fmt.Sprintf("Unknown method %q: use \"iqr\" or \"zscore\".", a.Method)
}

func (m method) checkK() string {
	if m.k <= 0 || m.k > 100 || math.IsNaN(m.k) {
		return fmt.Sprintf("k must be a positive number (e.g. %g for %s), not %g.", map[string]float64{"iqr": DefaultIQR, "zscore": DefaultZ}[m.name], m.name, m.k)
	}
	return ""
}

// source is the FROM item to read (a quoted table or a parenthesised
// SELECT) and the column's quoted name. problem says what the model must
// fix.
func (t *Tool) source(ctx context.Context, a arguments) (src, col, problem string, err error) {
	a.Table, a.SQL, a.Column = strings.TrimSpace(a.Table), strings.TrimSpace(a.SQL), strings.TrimSpace(a.Column)
	switch {
	case a.Table != "" && a.SQL != "":
		return "", "", "Give either table or sql, not both.", nil
	case a.SQL != "":
		return "(" + strings.TrimRight(a.SQL, "; \n\t") + ") AS src", quote(a.Column), "", nil
	case a.Table == "":
		return "", "", "Name the dataset in \"table\" (or give a SELECT in \"sql\").", nil
	}
	ds, err := t.cat.Datasets(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return "", "", "", ctx.Err()
		}
		return "", "", "", fmt.Errorf("find_outliers: list datasets: %w", err)
	}
	var names []string
	for _, d := range ds {
		names = append(names, d.Name)
		if !strings.EqualFold(d.Name, a.Table) {
			continue
		}
		var cols []string
		for _, c := range d.Columns {
			cols = append(cols, c.Name)
			if strings.EqualFold(c.Name, a.Column) {
				if !numeric(c.Type) {
					return "", "", fmt.Sprintf("Column %s of %s is %s, not a number: outliers are found in numeric columns.", c.Name, d.Name, c.Type), nil
				}
				return quote(d.Name), quote(c.Name), "", nil
			}
		}
		return "", "", fmt.Sprintf("%s has no column %q. Its columns: %s.", d.Name, a.Column, strings.Join(cols, ", ")), nil
	}
	return "", "", fmt.Sprintf("There is no dataset %q. The datasets: %s.", a.Table, strings.Join(names, ", ")), nil
}

// numeric reports whether a DuckDB type holds numbers.
func numeric(typ string) bool {
	t := strings.ToUpper(typ)
	for _, p := range []string{"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "REAL", "DECIMAL", "NUMERIC", "INT"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// quote is duck.QuoteIdent, the one way a name goes into SQL Loupe builds.
func quote(name string) string { return duck.QuoteIdent(name) }

// stats are the column's statistics and the outliers' bounds and counts.
type stats struct {
	rows, values         int64
	q1, q3, mean, sd     float64
	low, high            float64 // values below low or above high are outliers
	below, above         int64
	lowText, highText    string // the bounds as SQL literals
	describe, boundsText string
}

// stats runs the one-row statistics query. A failure the model can fix
// comes back as a Failed result.
func (t *Tool) stats(ctx context.Context, src, col string, m method) (stats, tools.Result, error) {
	k := strconv.FormatFloat(m.k, 'g', -1, 64)
	low, high := "q1 - "+k+" * (q3 - q1)", "q3 + "+k+" * (q3 - q1)"
	if m.name == "zscore" {
		low, high = "mean - "+k+" * sd", "mean + "+k+" * sd"
	}
	sql := `WITH v AS (SELECT CAST(` + col + ` AS DOUBLE) AS v FROM ` + src + `),
s AS (SELECT count(*) AS n, count(v) AS nn, quantile_cont(v, 0.25) AS q1, quantile_cont(v, 0.75) AS q3, avg(v) AS mean, stddev_samp(v) AS sd FROM v),
b AS (SELECT *, ` + low + ` AS lo, ` + high + ` AS hi FROM s)
SELECT n, nn, q1, q3, mean, sd, lo, hi, (SELECT count(*) FROM v WHERE v < b.lo) AS below, (SELECT count(*) FROM v WHERE v > b.hi) AS above FROM b`
	res, err := t.run.Run(ctx, sql, query.Limits{Timeout: t.timeout, MaxRows: 1})
	if err != nil {
		if ctx.Err() != nil {
			return stats{}, tools.Result{}, ctx.Err()
		}
		msg, ok := tools.QueryProblem(err)
		if !ok {
			return stats{}, tools.Result{}, fmt.Errorf("find_outliers: statistics: %w", err)
		}
		return stats{}, tools.Failed("Finding outliers failed: "+msg+"\nCheck the column (describe_table) or the SELECT (run_sql).", "query failed", sql), nil
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 10 {
		return stats{}, tools.Result{}, fmt.Errorf("find_outliers: statistics query returned %d rows", len(res.Rows))
	}
	r := res.Rows[0]
	st := stats{rows: toInt(r[0]), values: toInt(r[1]), q1: toFloat(r[2]), q3: toFloat(r[3]), mean: toFloat(r[4]), sd: toFloat(r[5]),
		low: toFloat(r[6]), high: toFloat(r[7]), below: toInt(r[8]), above: toInt(r[9])}
	st.lowText, st.highText = literal(st.low), literal(st.high)
	if m.name == "zscore" {
		st.describe = fmt.Sprintf("more than %g standard deviations from the mean (mean %s, sd %s)", m.k, num(st.mean), num(st.sd))
	} else {
		st.describe = fmt.Sprintf("outside Tukey's fences, %g × IQR beyond the quartiles (Q1 %s, Q3 %s, IQR %s)", m.k, num(st.q1), num(st.q3), num(st.q3-st.q1))
	}
	st.boundsText = fmt.Sprintf("below %s or above %s", num(st.low), num(st.high))
	return st, tools.Result{}, nil
}

// rows fetches the outlier rows, most extreme first, as run_sql would, and
// puts the statistics before the model's preview.
func (t *Tool) rows(ctx context.Context, a arguments, src, col string, m method, st stats) (tools.Result, error) {
	v := "CAST(" + col + " AS DOUBLE)"
	mid := literal((st.q1 + st.q3) / 2)
	if m.name == "zscore" {
		mid = literal(st.mean)
	}
	sql := "SELECT * FROM " + src + " WHERE " + v + " < " + st.lowText + " OR " + v + " > " + st.highText +
		" ORDER BY abs(" + v + " - " + mid + ") DESC"
	purpose := a.Purpose
	if purpose == "" {
		purpose = fmt.Sprintf("%s outliers (%s)", strings.Trim(col, `"`), m.name)
	}
	res, err := t.exec.Execute(ctx, sql, purpose, DefaultRows)
	if err != nil || res.Failed {
		return res, err
	}
	n := st.below + st.above
	head := fmt.Sprintf("%s of %s non-NULL values of %s are outliers: %s, %s.\nBelow: %s. Above: %s. (%s rows in all.)\n",
		count(n), count(st.values), strings.Trim(col, `"`), st.describe, st.boundsText, count(st.below), count(st.above), count(st.rows))
	if n == 0 {
		res.ForModel = head + "No value lies outside the bounds: there are no outliers by this rule."
	} else {
		res.ForModel = head + "The outlier rows, most extreme first:\n" + res.ForModel
	}
	res.Summary = fmt.Sprintf("%s outliers of %s (%s)", count(n), count(st.values), m.name)
	return res, nil
}

// literal is f as a SQL number.
func literal(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "NULL"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// num is f for reading: at most six significant digits.
func num(f float64) string {
	if math.IsNaN(f) {
		return "n/a"
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}

func count(n int64) string { return strconv.FormatInt(n, 10) }

func toFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case float32:
		return float64(x)
	case int64:
		return float64(x)
	case int32:
		return float64(x)
	case json.Number:
		f, _ := x.Float64()
		return f
	case string:
		f, err := strconv.ParseFloat(x, 64)
		if err == nil {
			return f
		}
	}
	return math.NaN()
}

func toInt(v any) int64 {
	f := toFloat(v)
	if math.IsNaN(f) {
		return 0
	}
	return int64(f)
}
