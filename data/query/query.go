// Package query runs one statement for the agent or the user through the
// guard, inside a read-only transaction on the locked workspace, with a
// timeout that interrupts DuckDB and caps on what is returned.
package query

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/guard"
)

// Limits bound one query. Zero fields take the defaults.
type Limits struct {
	Timeout  time.Duration // default 30 s
	MaxRows  int           // rows returned; default 1,000
	MaxBytes int           // approximate bytes of returned values; default 4 MiB
}

// Defaults are the limits used where a field of Limits is zero.
var Defaults = Limits{Timeout: 30 * time.Second, MaxRows: 1000, MaxBytes: 4 << 20}

func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = Defaults.Timeout
	}
	if l.MaxRows <= 0 {
		l.MaxRows = Defaults.MaxRows
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = Defaults.MaxBytes
	}
	return l
}

// Column is a result column and its DuckDB type name.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Result is a capped query result. Rows hold JSON-ready values (see
// normalize). RowCount is the full number of rows the statement produced,
// even when Truncated.
type Result struct {
	Columns   []Column      `json:"columns"`
	Rows      [][]any       `json:"rows"`
	RowCount  int64         `json:"row_count"`
	Truncated bool          `json:"truncated"`
	Elapsed   time.Duration `json:"-"`
	ElapsedMS float64       `json:"elapsed_ms"`
}

// TimeoutError means the query ran past its limit and was interrupted.
type TimeoutError struct{ Limit time.Duration }

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("query stopped after the %s time limit: filter earlier, aggregate, or sample (USING SAMPLE 10%%) to make it cheaper", e.Limit)
}

// Runner runs guarded queries on a workspace engine.
type Runner struct {
	eng *duck.Engine
	log *slog.Logger
}

// NewRunner returns a runner over eng; eng must outlive it.
func NewRunner(eng *duck.Engine) *Runner {
	return &Runner{eng: eng, log: slog.Default().With("subsystem", "query")}
}

// Run checks and runs one statement. Errors: *guard.RefusedError (not
// read-only), guard.ErrEmpty, *TimeoutError, ctx.Err() when the caller
// cancelled, and DuckDB's own error for a mistake in the SQL.
func (r *Runner) Run(ctx context.Context, text string, lim Limits) (*Result, error) {
	lim = lim.withDefaults()
	start := time.Now()
	qctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	var res *Result
	err := r.eng.Raw(qctx, func(c *duckdb.Conn) error {
		var err error
		res, err = runOn(qctx, c, text, r.eng.ImportDir(), lim)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(qctx.Err(), context.DeadlineExceeded) {
			return nil, &TimeoutError{Limit: lim.Timeout}
		}
		return nil, err
	}
	res.Elapsed = time.Since(start)
	res.ElapsedMS = float64(res.Elapsed.Microseconds()) / 1000
	return res, nil
}

func runOn(ctx context.Context, c *duckdb.Conn, text, importDir string, lim Limits) (*Result, error) {
	if err := duck.Exec(ctx, c, "BEGIN TRANSACTION READ ONLY"); err != nil {
		return nil, fmt.Errorf("begin read-only transaction: %w", err)
	}
	// The rollback must run even when ctx is done; it never blocks long.
	defer func() { _ = duck.Exec(context.Background(), c, "ROLLBACK") }()

	chk, err := guard.Check(c, text, importDir)
	if err != nil {
		return nil, err
	}
	stmt, counted, err := prepareForRun(ctx, c, chk, lim.MaxRows)
	if err != nil {
		return nil, guard.Classify(err)
	}
	defer stmt.Close()
	rows, err := stmt.QueryContext(ctx, nil)
	if err != nil {
		return nil, guard.Classify(err)
	}
	res, more, err := collect(rows, lim, !counted)
	_ = rows.Close()
	if err != nil {
		return nil, guard.Classify(err)
	}
	if more && counted {
		n, err := countRows(ctx, c, chk.Text)
		if err != nil {
			return nil, guard.Classify(err)
		}
		res.RowCount = n
	}
	return res, nil
}

// prepareForRun returns the statement to execute. For plain SELECTs it
// wraps the text in a LIMIT so DuckDB stops after the cap (counted=true:
// the total is asked for separately); otherwise it runs the statement as is
// and collect counts every row.
func prepareForRun(ctx context.Context, c *duckdb.Conn, chk *guard.Checked, maxRows int) (st *duckdb.Stmt, counted bool, err error) {
	if chk.Expanded {
		ps, err := c.PrepareContext(ctx, chk.Text)
		if err != nil {
			return nil, false, err
		}
		ds := ps.(*duckdb.Stmt)
		// The helpers have run; only a SELECT may follow them (an EXPLAIN
		// ANALYZE would run what it explains).
		if kind, err := guard.CheckFinal(ds); err != nil || kind != guard.Select {
			_ = ds.Close()
			if err == nil {
				err = &guard.RefusedError{Reason: "only a SELECT may follow the PIVOT's helper statements"}
			}
			return nil, false, err
		}
		return ds, false, nil
	}
	if chk.Kind == guard.Select {
		wrapped := "SELECT * FROM (" + chk.Text + "\n) AS loupe_q LIMIT " + strconv.Itoa(maxRows+1)
		if ps, err := c.Prepare(wrapped); err == nil {
			ds := ps.(*duckdb.Stmt)
			if kind, err := guard.CheckFinal(ds); err == nil && kind == guard.Select {
				_ = chk.Stmt.Close()
				return ds, true, nil
			}
			_ = ds.Close()
		}
	}
	return chk.Stmt, false, nil
}

func countRows(ctx context.Context, c *duckdb.Conn, text string) (int64, error) {
	// Prepare, not QueryContext: duckdb-go's QueryContext runs every
	// statement of a multi-statement text but the last.
	ps, err := c.Prepare("SELECT count(*) FROM (" + text + "\n) AS loupe_q")
	if err != nil {
		return 0, err
	}
	defer ps.Close()
	rows, err := ps.(*duckdb.Stmt).QueryContext(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	dest := []driver.Value{nil}
	if err := rows.Next(dest); err != nil {
		return 0, err
	}
	n, ok := dest[0].(int64)
	if !ok {
		return 0, fmt.Errorf("count: unexpected %T", dest[0])
	}
	return n, nil
}

// collect reads up to the caps. more reports rows left unread; with
// countAll it reads them too (without keeping them) to count them.
func collect(rows driver.Rows, lim Limits, countAll bool) (res *Result, more bool, err error) {
	names := rows.Columns()
	res = &Result{Columns: make([]Column, len(names)), Rows: [][]any{}}
	typed, _ := rows.(driver.RowsColumnTypeDatabaseTypeName)
	for i, n := range names {
		res.Columns[i].Name = n
		if typed != nil {
			res.Columns[i].Type = typed.ColumnTypeDatabaseTypeName(i)
		}
	}
	dest := make([]driver.Value, len(names))
	bytes := 0
	for {
		if err := rows.Next(dest); err != nil {
			if errors.Is(err, io.EOF) {
				return res, more, nil
			}
			return nil, false, err
		}
		if more {
			if !countAll {
				return res, true, nil
			}
			res.RowCount++
			continue
		}
		if len(res.Rows) >= lim.MaxRows || bytes >= lim.MaxBytes {
			more, res.Truncated = true, true
			if !countAll {
				return res, true, nil
			}
			res.RowCount++
			continue
		}
		row := make([]any, len(dest))
		for i, v := range dest {
			row[i] = normalize(v, res.Columns[i].Type)
			bytes += Size(row[i])
		}
		res.Rows = append(res.Rows, row)
		res.RowCount++
	}
}
