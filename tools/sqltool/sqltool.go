// Package sqltool is the run_sql tool: one read-only DuckDB query through
// the workspace's guarded runner. The model reads a small preview; the UI
// gets the whole (capped) result by reference from the results store. A
// query the model can fix — bad SQL, a refused statement, a timeout —
// comes back as a Failed result carrying DuckDB's message and hints
// (did-you-mean from the catalog, the table's columns, dialect tips).
package sqltool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/tools"
	"github.com/loupeapp/loupe/tools/args"
)

// Name is the tool's name.
const Name = "run_sql"

// Runner runs one guarded statement (data/query's *Runner).
type Runner interface {
	Run(ctx context.Context, sql string, lim query.Limits) (*query.Result, error)
}

// Catalog lists the loaded datasets (data/workspace's *Workspace).
type Catalog interface {
	Datasets(ctx context.Context) ([]catalog.Dataset, error)
}

// Config bounds queries and previews. Zero fields take the defaults.
type Config struct {
	Timeout      time.Duration // per query; default 30 s
	KeepRows     int           // rows held for the UI; default 10,000
	KeepBytes    int           // approximate bytes held for the UI; default 16 MiB
	PreviewRows  int           // rows the model sees; default 30
	PreviewBytes int           // bytes of the model's preview; default 8 KiB
	DisplayRows  int           // rows inlined in the UI's Table.Preview; default 50
	// Observe, when set, sees each successful result before the model's
	// preview is made (the privacy gate learns the values a query derived
	// from private columns). It must not change res.
	Observe func(ctx context.Context, sql string, res *query.Result)
}

// Defaults are the values used where a Config field is zero.
var Defaults = Config{Timeout: 30 * time.Second, KeepRows: 10_000, KeepBytes: 16 << 20, PreviewRows: 30, PreviewBytes: 8 << 10, DisplayRows: 50}

func (c Config) withDefaults() Config {
	d := Defaults
	d.Observe = c.Observe
	if c.Timeout > 0 {
		d.Timeout = c.Timeout
	}
	if c.KeepRows > 0 {
		d.KeepRows = c.KeepRows
	}
	if c.KeepBytes > 0 {
		d.KeepBytes = c.KeepBytes
	}
	if c.PreviewRows > 0 {
		d.PreviewRows = c.PreviewRows
	}
	if c.PreviewBytes > 0 {
		d.PreviewBytes = c.PreviewBytes
	}
	if c.DisplayRows > 0 {
		d.DisplayRows = c.DisplayRows
	}
	return d
}

// Tool is run_sql. It is safe for concurrent use.
type Tool struct {
	run   Runner
	cat   Catalog
	store *results.Store
	cfg   Config
}

var _ tools.Tool = (*Tool)(nil)

// New returns run_sql over runner, with hints from cat, keeping results in
// store.
func New(runner Runner, cat Catalog, store *results.Store, cfg Config) *Tool {
	return &Tool{run: runner, cat: cat, store: store, cfg: cfg.withDefaults()}
}

var params = args.Params{Tool: Name, List: []args.Param{
	{Name: "sql", Type: args.String, Required: true, Doc: "one DuckDB SELECT statement", Aliases: []string{"query", "statement", "sql_query"}},
	{Name: "purpose", Type: args.String, Doc: "what this query checks, in a few words", Aliases: []string{"reason", "description"}},
}}

// Spec describes run_sql to the model.
func (t *Tool) Spec() tools.Spec {
	return tools.Spec{
		Name: Name,
		Description: fmt.Sprintf("Run one read-only DuckDB query (SELECT or WITH) on the loaded datasets. "+
			"Returns column types and the first %d rows; the user sees the full result. Aggregate or filter big results. "+
			"DuckDB dialect: LIMIT n (no TOP), \"double quotes\" for names, 'single quotes' for text, ILIKE, x::TYPE casts, "+
			"a || b joins text, date_trunc('month', d), GROUP BY ALL, / gives decimals and // whole numbers.", t.cfg.PreviewRows),
		Parameters: params.Schema(),
		Guidance:   tools.Guidance{Stage: tools.StageQuery, Text: "Run focused queries with run_sql, read the results, refine."},
		Aliases: []string{"sql", "query", "runquery", "executesql", "execute", "executequery", "sqlquery", "runsqlquery",
			"querydatabase", "sqlexecutor"},
		Example:  json.RawMessage(`{"sql": "SELECT region, count(*) FROM orders GROUP BY region"}`),
		Evidence: tools.EvidenceQuery,
		View:     tools.View{Icon: "table", Doing: "Running a query", Did: "Ran a query"},
	}
}

// Run runs the query in args ({"sql": …, "purpose": …}).
func (t *Tool) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		SQL     string `json:"sql"`
		Purpose string `json:"purpose"`
	}
	if err := params.Decode(raw, &a); err != nil {
		return params.Failure(err), nil
	}
	return t.Execute(ctx, a.SQL, a.Purpose, 0)
}

// Execute runs sql as run_sql does, keeping at most keepRows rows for the
// UI (0 means Config.KeepRows). Other tools that show rows (sample_rows)
// use it so their results and failures look the same.
func (t *Tool) Execute(ctx context.Context, sql, purpose string, keepRows int) (tools.Result, error) {
	if keepRows <= 0 || keepRows > t.cfg.KeepRows {
		keepRows = t.cfg.KeepRows
	}
	sql = strings.TrimSpace(sql)
	res, err := t.run.Run(ctx, sql, query.Limits{Timeout: t.cfg.Timeout, MaxRows: keepRows, MaxBytes: t.cfg.KeepBytes})
	if err != nil {
		return t.failure(ctx, err, sql)
	}
	if t.cfg.Observe != nil {
		t.cfg.Observe(ctx, sql, res)
	}
	ref := t.store.Put(res, sql)
	text := Preview(res, t.cfg.PreviewRows, t.cfg.PreviewBytes)
	return tools.Result{
		ForModel: text,
		Summary:  summary(res),
		Display:  tools.Display{Kind: tools.KindTable, Text: purpose, SQL: sql, Table: t.table(ref, res)},
	}, nil
}

// table is the UI's view of a stored result.
func (t *Tool) table(ref results.Ref, res *query.Result) *tools.Table {
	cols := make([]tools.Column, len(res.Columns))
	for i, c := range res.Columns {
		cols[i] = tools.Column{Name: c.Name, Type: c.Type}
	}
	kept := int64(len(res.Rows))
	return &tools.Table{
		Ref:       string(ref),
		Columns:   cols,
		Rows:      max(res.RowCount, kept),
		Kept:      kept,
		Truncated: res.Truncated || res.RowCount > kept,
		Preview:   res.Rows[:min(len(res.Rows), t.cfg.DisplayRows)],
	}
}

func summary(res *query.Result) string {
	s := rowsWord(res.RowCount)
	if kept := int64(len(res.Rows)); kept < res.RowCount {
		s += fmt.Sprintf(" (%d kept)", kept)
	}
	return s
}

// failure turns a Runner error into a Failed result the model can act on,
// or returns it when the model cannot fix it (ctx ended, infrastructure).
func (t *Tool) failure(ctx context.Context, err error, sql string) (tools.Result, error) {
	if ctx.Err() != nil {
		return tools.Result{}, ctx.Err()
	}
	var (
		refused *guard.RefusedError
		timeout *query.TimeoutError
		de      *duckdb.Error
	)
	switch {
	case errors.As(err, &refused):
		msg := fmt.Sprintf("The query was refused: %s. Only SELECT queries are allowed (the workspace is read-only): rewrite it as one SELECT.", refused.Reason)
		return tools.Failed(msg, "refused: "+refused.Reason, sql), nil
	case errors.As(err, &timeout):
		msg := fmt.Sprintf("The query was stopped after the %s time limit. Simplify or aggregate: filter early, aggregate before joining, avoid cross joins, or sample with USING SAMPLE 10%%.", timeout.Limit)
		return tools.Failed(msg, "timed out after "+timeout.Limit.String(), sql), nil
	case errors.Is(err, guard.ErrEmpty):
		return tools.Failed("The query is empty: pass one SELECT statement in \"sql\".", "empty query", sql), nil
	case errors.As(err, &de) && fixable(de.Type):
		return t.sqlFailure(ctx, err.Error(), sql)
	}
	return tools.Result{}, fmt.Errorf("run_sql: %w", err)
}

// fixable reports whether a DuckDB error type is a mistake in the query
// rather than a broken database or connection.
func fixable(t duckdb.ErrorType) bool {
	switch t {
	case duckdb.ErrorTypeFatal, duckdb.ErrorTypeConnection, duckdb.ErrorTypeInternal, duckdb.ErrorTypeIO:
		return false
	}
	return true
}

// sqlFailure is DuckDB's message with hints.
func (t *Tool) sqlFailure(ctx context.Context, msg, sql string) (tools.Result, error) {
	ds, err := t.cat.Datasets(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Result{}, fmt.Errorf("run_sql: list datasets for hints: %w", err)
	}
	var b strings.Builder
	b.WriteString("The query failed.\nError: ")
	b.WriteString(trimMessage(msg))
	if hs := hints(msg, sql, ds); len(hs) > 0 {
		b.WriteString("\nHints:")
		for _, h := range hs {
			b.WriteString("\n- " + h)
		}
	}
	b.WriteString("\nFix the query and try again.")
	first, _, _ := strings.Cut(msg, "\n")
	return tools.Failed(b.String(), first, sql), nil
}
