package app

import (
	"errors"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/remote"
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

// ImportQuery runs sql on the connection name and stores its result in
// the workspace as the table table (at most rowLimit rows; 0 means
// remote.DefaultImportRows), so that it can be joined with local data.
// replace replaces a dataset of that name; without it the import fails
// when one exists. Progress comes as import:progress events, then
// datasets:changed. It is all or nothing; CancelImport stops it, on the
// server too.
func (a *App) ImportQuery(name, sql, table string, rowLimit int, replace bool) (*Dataset, error) {
	table, sql = strings.TrimSpace(table), strings.TrimSpace(sql)
	if err := session.CheckImport(table, sql, rowLimit); err != nil {
		return nil, err
	}
	d, err := a.s.Import(session.Import{Conn: name, SQL: sql, Table: table, RowLimit: rowLimit, Replace: replace,
		Progress: a.importProgress(name, table, rowLimit)})
	if err != nil {
		return nil, importError(err, name, table)
	}
	out := datasetDTO(d)
	return &out, nil
}

// CancelImport stops the import into table, if one is going; the
// workspace is left as it was.
func (a *App) CancelImport(table string) error {
	a.s.CancelImport(table)
	return nil
}

// importProgress publishes an import's progress as import:progress
// events (session.Throttle).
func (a *App) importProgress(name, table string, rowLimit int) func(remote.ImportProgress) {
	if rowLimit == 0 {
		rowLimit = remote.DefaultImportRows
	}
	return session.Throttle(func(p remote.ImportProgress) string { return p.Phase }, func(p remote.ImportProgress) {
		a.publish(EventImportProgress, ImportProgress{Connection: name, Table: table, Phase: p.Phase, Rows: p.Rows, MaxRows: int64(rowLimit)})
	})
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
