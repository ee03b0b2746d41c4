package app

import (
	"context"
	"time"

	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/workspace"
)

// RunConsoleSQL runs one statement as the query of the console's tab tab
// (any id the frontend picks), through the same guard as the agent.
// Tabs run side by side; a tab's next query, or CancelConsoleSQL(tab),
// stops the one it is running. Every query is added to the workspace's
// query history (QueryHistory). Errors as RunSQL's.
func (a *App) RunConsoleSQL(tab, sql string) (*QueryResult, error) {
	var out *QueryResult
	err := a.s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		var err error
		out, err = queryResult(a.s.RunConsole(ctx, ws, tab, sql))
		return err
	})
	return out, wrap(err)
}

// CancelConsoleSQL stops the query running in the console's tab tab:
// DuckDB is interrupted and its RunConsoleSQL returns an error with code
// "canceled". It reports whether a query was running there.
func (a *App) CancelConsoleSQL(tab string) (bool, error) {
	return a.s.Console.Stop(tab), nil
}

// CancelSQL stops every running console query (RunSQL's and every tab's):
// DuckDB is interrupted and each returns an error with code "canceled".
// It reports whether a query was running.
func (a *App) CancelSQL() (bool, error) {
	return a.s.Console.StopAll(), nil
}

// HistoryEntry is a query run from the SQL console, as its history keeps
// it. Outcome is "done" (Rows counts its rows), "failed" (Error says why)
// or "canceled".
type HistoryEntry struct {
	ID         string    `json:"id"`
	SQL        string    `json:"sql"`
	At         time.Time `json:"at"`
	DurationMS float64   `json:"durationMs"`
	Outcome    string    `json:"outcome"`
	Rows       int64     `json:"rows"`
	Error      string    `json:"error,omitempty"`
}

// QueryHistory returns up to limit (1 to 500; 0 means 100) of the SQL
// console's queries, newest first, those whose SQL or error contains
// search (ignoring case; all when blank). The history is the
// workspace's, kept in its folder (the newest 500 queries).
func (a *App) QueryHistory(search string, limit int) ([]HistoryEntry, error) {
	if limit < 0 || limit > 500 {
		return nil, newError(CodeInvalid, "The history's limit is from 1 to 500 (0 for 100).", "")
	}
	if limit == 0 {
		limit = 100
	}
	h, err := a.s.QueryHistory()
	if err != nil {
		return nil, wrap(err)
	}
	list, err := h.List(search, limit)
	if err != nil {
		return nil, session.HistoryError(err)
	}
	out := make([]HistoryEntry, len(list))
	for i, e := range list {
		out[i] = HistoryEntry{ID: e.ID, SQL: e.SQL, At: e.At, DurationMS: e.DurationMS, Outcome: string(e.Outcome), Rows: e.Rows, Error: e.Error}
	}
	return out, nil
}

// ClearQueryHistory forgets every query of the SQL console's history.
func (a *App) ClearQueryHistory() error {
	h, err := a.s.QueryHistory()
	if err != nil {
		return wrap(err)
	}
	return session.HistoryError(h.Clear())
}
