package tools

import (
	"errors"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/query"
)

// maxSummary bounds a failure's one-line summary, in runes.
const maxSummary = 100

// Failed is a failure the model can fix: msg says what went wrong and how
// to fix it, summary is its line in the trace (clipped to 100 runes), sql
// the query concerned, if any.
func Failed(msg, summary, sql string) Result {
	if r := []rune(summary); len(r) > maxSummary {
		summary = string(r[:maxSummary-1]) + "…"
	}
	return Result{
		ForModel: msg,
		Summary:  summary,
		Failed:   true,
		Display:  Display{Kind: KindError, Text: msg, SQL: sql},
	}
}

// QueryProblem returns the message of a query failure the model can fix —
// refused by the guard, empty, over its time limit, or DuckDB's error in
// the SQL — and true; false for anything else (a broken database, ctx
// ending), which the tool returns as an error.
func QueryProblem(err error) (string, bool) {
	var (
		refused *guard.RefusedError
		timeout *query.TimeoutError
		de      *duckdb.Error
	)
	switch {
	case errors.As(err, &refused), errors.Is(err, guard.ErrEmpty), errors.As(err, &timeout):
		return err.Error(), true
	case errors.As(err, &de):
		return de.Error(), true
	}
	return "", false
}
