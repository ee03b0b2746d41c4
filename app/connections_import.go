package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/loupeapp/loupe/app/session"
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
	case !session.ValidDatasetName.MatchString(table) || strings.HasPrefix(strings.ToLower(table), "_loupe"):
		return nil, newError(CodeInvalid, fmt.Sprintf("%q cannot be a table name.", table),
			"Use letters, digits and underscores, starting with a letter (at most 63 characters).")
	case sql == "":
		return nil, newError(CodeInvalid, "The query is empty.", "Write one SELECT statement for the database.")
	case rowLimit < 0:
		return nil, newError(CodeInvalid, "The row limit cannot be negative.", "Leave it empty for the default.")
	}
	d, err := a.runImport(importJob{conn: name, sql: sql, table: table, rowLimit: rowLimit, replace: replace}, a.withWorkspace)
	if err != nil {
		return nil, err
	}
	out := datasetDTO(d)
	return &out, nil
}

// importJob is one import of a query's result from a connection.
type importJob struct {
	conn, sql, table string
	rowLimit         int // 0: remote.DefaultImportRows
	replace          bool
}

// runImport runs job inside the workspace that in gives, registered so
// that CancelImport stops it, with import:progress events, then
// datasets:changed.
func (a *App) runImport(job importJob, in func(func(context.Context, *workspace.Workspace) error) error) (catalog.Dataset, error) {
	if job.rowLimit == 0 {
		job.rowLimit = remote.DefaultImportRows
	}
	ctx, cancel := context.WithCancel(a.life)
	defer cancel()
	key := importKey(job.table)
	if !a.runs.add(key, cancel) {
		return catalog.Dataset{}, newError(CodeBusy, fmt.Sprintf("%s is already being imported.", job.table), "Wait for it, or cancel it first.")
	}
	defer a.runs.remove(key)
	progress := a.importProgress(job.conn, job.table, int64(job.rowLimit))
	progress(remote.ImportProgress{Table: job.table, Phase: "connecting"})
	r, release, err := a.remote(ctx, job.conn)
	if err != nil {
		return catalog.Dataset{}, err
	}
	defer release()
	var d catalog.Dataset
	err = in(func(_ context.Context, ws *workspace.Workspace) error {
		var err error
		d, err = remote.Import(ctx, ws.Engine, r.Source, job.sql, remote.ImportOptions{Table: job.table, Replace: job.replace,
			MaxRows: job.rowLimit, Origin: remote.Label(job.conn), Progress: progress})
		if err == nil {
			a.datasetsChanged(ctx, ws)
		}
		return err
	})
	if err != nil {
		return catalog.Dataset{}, importError(err, job.conn, job.table)
	}
	return d, nil
}

// importedFrom returns the connection the dataset d was imported from,
// and whether it was (its record holds the query).
func importedFrom(d catalog.Dataset) (string, bool) {
	name := remote.LabelName(d.Source)
	return name, name != "" && d.Part != ""
}

// refreshImport runs the query the dataset d was imported with again on
// its connection, with the same row limit (the default for imports
// recorded before limits were), replacing d as ImportQuery does: the same
// progress events, CancelImport stops it, and on any failure d stays as
// it was. It connects anew, to read the database as it is now. It runs in
// ws, the workspace the caller holds. A connection
// removed (or renamed) since is a not_found Error saying what to do.
func (a *App) refreshImport(ctx context.Context, ws *workspace.Workspace, d catalog.Dataset) error {
	name, ok := importedFrom(d)
	if !ok {
		return newError(CodeInvalid, fmt.Sprintf("%s was not imported from a connection.", d.Name), "")
	}
	if _, err := a.profile(name); err != nil {
		var e *Error
		if errors.As(err, &e) && e.Code == CodeNotFound {
			return &Error{Code: CodeNotFound,
				Message: fmt.Sprintf("%s cannot be refreshed: the connection %s was removed.", d.Name, name),
				Hint:    fmt.Sprintf("Add the connection %s again (Databases in the sidebar), or remove this dataset.", name), Err: err}
		}
		return err
	}
	// Connect afresh: an open SQLite file is read as immutable, so only a
	// new open sees the rows written to it since.
	a.remotes.Evict(name)
	job := importJob{conn: name, sql: d.Part, table: d.Name, rowLimit: int(d.MaxRows), replace: true}
	_, err := a.runImport(job, func(fn func(context.Context, *workspace.Workspace) error) error { return fn(ctx, ws) })
	return err
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
