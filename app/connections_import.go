package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/workspace"
)

// EventImportProgress carries an ImportProgress.
const EventImportProgress = "import:progress"

// ImportProgress is an import:progress event: a query's result being
// copied from a connection into the workspace.
type ImportProgress struct {
	Connection string `json:"connection"`
	Table      string `json:"table"`
	Phase      string `json:"phase"` // connecting, reading, profiling, done
	Rows       int64  `json:"rows"`
	MaxRows    int64  `json:"maxRows"`
}

// importKey is an import's key in the run registry.
func importKey(table string) string { return "import:" + table }

// ImportQuery runs sql on the connection name and stores its result in
// the workspace as the table table (at most rowLimit rows; 0 means
// remote.DefaultImportRows), so that it can be joined with local data.
// replace replaces a dataset of that name; without it the import fails
// when one exists. Progress comes as import:progress events, then
// datasets:changed. It is all or nothing; CancelImport stops it, on the
// server too.
func (a *App) ImportQuery(name, sql, table string, rowLimit int, replace bool) (*Dataset, error) {
	table, sql = strings.TrimSpace(table), strings.TrimSpace(sql)
	switch {
	case !validName.MatchString(table) || strings.HasPrefix(strings.ToLower(table), "_loupe"):
		return nil, newError(CodeInvalid, fmt.Sprintf("%q cannot be a table name.", table),
			"Use letters, digits and underscores, starting with a letter (at most 63 characters).")
	case sql == "":
		return nil, newError(CodeInvalid, "The query is empty.", "Write one SELECT statement for the database.")
	case rowLimit < 0:
		return nil, newError(CodeInvalid, "The row limit cannot be negative.", "Leave it empty for the default.")
	}
	if rowLimit == 0 {
		rowLimit = remote.DefaultImportRows
	}
	ctx, cancel := context.WithCancel(a.life)
	defer cancel()
	key := importKey(table)
	if !a.runs.add(key, cancel) {
		return nil, newError(CodeBusy, fmt.Sprintf("%s is already being imported.", table), "Wait for it, or cancel it first.")
	}
	defer a.runs.remove(key)
	progress := a.importProgress(name, table, int64(rowLimit))
	progress(remote.ImportProgress{Table: table, Phase: "connecting"})
	r, release, err := a.remote(ctx, name)
	if err != nil {
		return nil, err
	}
	defer release()
	var d catalog.Dataset
	err = a.withWorkspace(func(_ context.Context, ws *workspace.Workspace) error {
		var err error
		d, err = remote.Import(ctx, ws.Engine, r.Source, sql, remote.ImportOptions{Table: table, Replace: replace,
			MaxRows: rowLimit, Origin: connectionLabel + name, Progress: progress})
		if err == nil {
			a.datasetsChanged(ctx, ws)
		}
		return err
	})
	if err != nil {
		return nil, importError(err, name, table)
	}
	out := datasetDTO(d)
	return &out, nil
}

// CancelImport stops the import into table, if one is going; the
// workspace is left as it was.
func (a *App) CancelImport(table string) error {
	a.runs.cancel(importKey(strings.TrimSpace(table)))
	return nil
}

// importProgress returns the progress callback of an import, which
// publishes import:progress events: every phase change, and at most ten a
// second while rows stream.
func (a *App) importProgress(name, table string, maxRows int64) func(remote.ImportProgress) {
	var (
		mu    sync.Mutex
		last  time.Time
		phase string
	)
	return func(p remote.ImportProgress) {
		mu.Lock()
		now := time.Now()
		send := p.Phase != phase || now.Sub(last) >= progressEvery
		if send {
			last, phase = now, p.Phase
		}
		mu.Unlock()
		if send {
			a.publish(EventImportProgress, ImportProgress{Connection: name, Table: table, Phase: p.Phase, Rows: p.Rows, MaxRows: maxRows})
		}
	}
}

// importError shapes an import's failure: the connection's problems,
// refusals and time limits as usual; a name taken; anything else the
// database said about the SQL.
func importError(err error, name, table string) error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, remote.ErrExists):
		return &Error{Code: CodeInvalid, Message: fmt.Sprintf("A dataset called %s already exists.", table),
			Hint: "Choose another name, or tick Replace to overwrite it.", Err: err}
	case remote.ProblemOf(err) != "":
		return connError(err)
	}
	e = AsError(err)
	if e.Code == CodeInternal {
		e = &Error{Code: CodeSQL, Message: fmt.Sprintf("The query failed on %s: %v", name, err),
			Hint: "Fix the SQL (it runs on the database, in its own dialect) and try again.", Err: err}
	}
	return e
}
