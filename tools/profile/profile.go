// Package profile is the profile_data tool: per-column statistics and
// data-quality flags for one dataset, in two or three aggregate passes
// through the guarded, read-only query path.
package profile

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/tools"
	targs "github.com/loupeapp/loupe/tools/args"
)

// Name is the tool's name as the model calls it.
const Name = "profile_data"

// Runner runs one guarded, read-only query (data/query.Runner).
type Runner interface {
	Run(ctx context.Context, sql string, lim query.Limits) (*query.Result, error)
}

// Catalog lists the loaded datasets (data/workspace.Workspace).
type Catalog interface {
	Datasets(ctx context.Context) ([]catalog.Dataset, error)
}

// Tool is profile_data.
type Tool struct {
	cat     Catalog
	run     Runner
	timeout time.Duration
	log     *slog.Logger
}

var _ tools.Tool = (*Tool)(nil)

// New returns the tool; cat and run must outlive it.
func New(cat Catalog, run Runner) *Tool {
	return &Tool{cat: cat, run: run, timeout: query.Defaults.Timeout, log: slog.Default().With("subsystem", "profile")}
}

const description = `Profile a dataset's columns: NULLs, distinct values, min/max, mean, median, quantiles and standard deviation of numbers, top values of low-cardinality columns, IQR outliers, and data-quality flags (all NULL, constant, mostly NULL, identifier-like text, numbers or dates stored as text, negative amounts, duplicate keys, padded text, empty strings). Use it before analysing a table you have not looked at, or when results look odd.`

// Spec describes the tool to the model.
func (t *Tool) Spec() tools.Spec {
	return tools.Spec{Name: Name, Description: description, Parameters: params.Schema(),
		Aliases:  []string{"profile", "profilecolumn", "profilecolumns", "profiletable", "summarize"},
		Example:  json.RawMessage(`{"table": "orders"}`),
		Evidence: tools.EvidenceQuery,
		View:     tools.View{Icon: "pulse", Doing: "Profiling[ {table}]", Did: "Profiled[ {table}]"},
	}
}

// Run profiles the table. An unknown table or column, or a query the
// table cannot answer in time, is a Failed result.
func (t *Tool) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	start := time.Now()
	a, err := decodeArgs(raw)
	if err != nil {
		return params.Failure(err), nil
	}
	ds, problem, err := t.dataset(ctx, a.Table)
	if err != nil || problem != "" {
		return tools.Failed(problem, "unknown table", ""), err
	}
	cols, problem := pick(ds, a.Columns)
	if problem != "" {
		return tools.Failed(problem, "unknown column", ""), nil
	}
	p, err := t.profile(ctx, ds, cols)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		msg, ok := tools.QueryProblem(err)
		if !ok {
			return tools.Result{}, fmt.Errorf("profile %s: %w", ds.Name, err)
		}
		return tools.Failed("Profiling "+ds.Name+" failed: "+msg+"\nProfile fewer columns, or query the table with run_sql.", "profile failed", ""), nil
	}
	p.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
	data, err := json.Marshal(p)
	if err != nil {
		return tools.Result{}, fmt.Errorf("encode profile: %w", err)
	}
	flags := 0
	for _, c := range p.Columns {
		flags += len(c.Flags)
	}
	return tools.Result{
		ForModel: forModel(p, len(ds.Columns)),
		Summary:  fmt.Sprintf("%s: %d rows, %d columns, %d flags", p.Table, p.Rows, len(p.Columns), flags),
		Display:  tools.Display{Kind: tools.KindProfile, Data: data},
	}, nil
}

// dataset finds the dataset called name (case-insensitively, with or
// without "main.").
func (t *Tool) dataset(ctx context.Context, name string) (catalog.Dataset, string, error) {
	all, err := t.cat.Datasets(ctx)
	if err != nil {
		return catalog.Dataset{}, "", fmt.Errorf("list datasets: %w", err)
	}
	name = strings.Trim(strings.TrimPrefix(name, "main."), `"`)
	names := make([]string, len(all))
	for i, d := range all {
		if d.Name == name {
			return d, "", nil
		}
		names[i] = d.Name
	}
	for _, d := range all {
		if strings.EqualFold(d.Name, name) {
			return d, "", nil
		}
	}
	if len(all) == 0 {
		return catalog.Dataset{}, "There are no datasets loaded, so there is nothing to profile.", nil
	}
	msg := fmt.Sprintf("No dataset is called %q; datasets are: %s.", name, strings.Join(names, ", "))
	if c := closest(name, names); c != "" {
		msg += fmt.Sprintf(" Did you mean %q?", c)
	}
	return catalog.Dataset{}, msg, nil
}

// pick returns the catalog columns asked for, or all of them.
func pick(ds catalog.Dataset, want []string) ([]catalog.Column, string) {
	if len(want) == 0 {
		return ds.Columns, ""
	}
	names := make([]string, len(ds.Columns))
	for i, c := range ds.Columns {
		names[i] = c.Name
	}
	var out []catalog.Column
	var unknown []string
	for _, w := range want {
		found := false
		for _, c := range ds.Columns {
			if c.Name == w || strings.EqualFold(c.Name, w) {
				out = append(out, c)
				found = true
				break
			}
		}
		if !found {
			s := fmt.Sprintf("%q", w)
			if c := closest(w, names); c != "" {
				s += fmt.Sprintf(" (did you mean %q?)", c)
			}
			unknown = append(unknown, s)
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Sprintf("%s has no column %s; its columns are: %s.", ds.Name, strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	return out, ""
}

// pass is a run of the columns profiled, [start, end), that one query
// reads from one relation.
type pass struct {
	from       string // quoted relation
	start, end int
}

// passes cuts the columns names of ds into runs of at most passColumns
// that one relation holds: ds itself, or for a dataset stored in parts
// (a very wide file) the part that holds them (catalog.Relation), since
// a query through its view binds every one of its columns.
func passes(ds catalog.Dataset, names []string) []pass {
	pos := map[string]int{}
	if ds.PartColumns > 0 {
		for i, c := range ds.Columns {
			pos[c.Name] = i
		}
	}
	var out []pass
	for start := 0; start < len(names); {
		from := ds.Relation(pos[names[start]])
		end := start + 1
		for end < len(names) && end-start < passColumns && ds.Relation(pos[names[end]]) == from {
			end++
		}
		out = append(out, pass{from: from, start: start, end: end})
		start = end
	}
	return out
}

// passColumns bounds the columns of one profile query. On a 10,000-column
// table 64 was fastest (20.8 s in all; 16: 26.7 s, 256: 27.8 s, 1,024: 42 s).
const passColumns = 64

// profile runs the passes: one aggregate for every figure, one for the
// outliers and exact key counts, and one small query per duplicated key.
//
// Each pass runs over at most passColumns columns per query, so a table of
// any width costs queries of bounded size (one aggregate over 10,000
// columns made DuckDB's planner crash the process).
func (t *Tool) profile(ctx context.Context, ds catalog.Dataset, cols []catalog.Column) (*Profile, error) {
	exact := ds.Rows <= exactRows
	var rows int64
	out := make([]Column, 0, len(cols))
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	runs := passes(ds, names)
	for _, p := range runs {
		part := cols[p.start:p.end]
		sql, pl := firstPass(p.from, part, exact)
		res, err := t.one(ctx, sql)
		if err != nil {
			return nil, err
		}
		r, o := pl.read(res.Rows[0], part)
		rows, out = r, append(out, o...)
	}
	keys := likelyKeys(ds.Name, out)
	for _, p := range runs {
		start, end := p.start, p.end
		var partKeys []int
		for _, k := range keys {
			if k >= start && k < end {
				partKeys = append(partKeys, k-start)
			}
		}
		if sql, fill := secondPass(p.from, out[start:end], partKeys); sql != "" {
			res, err := t.one(ctx, sql)
			if err != nil {
				return nil, err
			}
			fill(res.Rows[0])
		}
	}
	isKey := map[int]bool{}
	dups := map[int][]Value{}
	for _, k := range keys {
		isKey[k] = true
		c := out[k]
		if c.Distinct >= c.nonNull {
			continue
		}
		res, err := t.run.Run(ctx, duplicatesQuery(ds.Name, c.Name), query.Limits{Timeout: t.timeout, MaxRows: 3})
		if err != nil {
			return nil, err
		}
		for _, r := range res.Rows {
			dups[k] = append(dups[k], Value{Value: fmt.Sprint(r[0]), Count: toInt(r[1])})
		}
	}
	for i := range out {
		flag(&out[i], rows, isKey[i], dups[i])
	}
	return &Profile{Table: ds.Name, Rows: rows, Approx: !exact, Columns: out}, nil
}

// one runs an aggregate that returns a single row.
func (t *Tool) one(ctx context.Context, sql string) (*query.Result, error) {
	res, err := t.run.Run(ctx, sql, query.Limits{Timeout: t.timeout, MaxRows: 1})
	if err != nil {
		return nil, err
	}
	if len(res.Rows) != 1 {
		return nil, fmt.Errorf("profile query returned %d rows, want 1", len(res.Rows))
	}
	return res, nil
}

// closest is the name nearest to s, if near enough to be a typo, else "".
func closest(s string, names []string) string {
	best, bestD := "", 1<<30
	for _, n := range names {
		if strings.EqualFold(n, s) {
			return n
		}
		if d := targs.Distance(strings.ToLower(s), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	if bestD <= max(1, len([]rune(s))/3) {
		return best
	}
	return ""
}
