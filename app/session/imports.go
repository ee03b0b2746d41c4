package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/remote"
	"github.com/loupeapp/loupe/data/workspace"
)

// Import is one import of a query's result from a connection into the
// workspace.
type Import struct {
	Conn, SQL, Table string
	RowLimit         int // 0: remote.DefaultImportRows
	Replace          bool
	// Progress hears how far it is, throttled (Throttle).
	Progress func(remote.ImportProgress)
}

// ImportKey is an import's key in the run registry.
func ImportKey(table string) string { return "import:" + table }

// CheckImport says what is wrong with an import before it starts.
func CheckImport(table, sql string, rowLimit int) error {
	switch {
	case !ValidDatasetName.MatchString(table) || strings.HasPrefix(strings.ToLower(table), "_loupe"):
		return NewError(CodeInvalid, fmt.Sprintf("%q cannot be a table name.", table),
			"Use letters, digits and underscores, starting with a letter (at most 63 characters).")
	case sql == "":
		return NewError(CodeInvalid, "The query is empty.", "Write one SELECT statement for the database.")
	case rowLimit < 0:
		return NewError(CodeInvalid, "The row limit cannot be negative.", "Leave it empty for the default.")
	}
	return nil
}

// Import runs job in the workspace, registered so that CancelImport stops
// it (on the server too); then the datasets changed (Local.Changed). It
// is all or nothing. Its errors are data/remote's and the workspace's.
func (s *Session) Import(job Import) (catalog.Dataset, error) {
	var d catalog.Dataset
	err := s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		var err error
		d, err = s.importInto(ctx, ws, job)
		return err
	})
	return d, err
}

// CancelImport stops the import into table, if one is going; the
// workspace is left as it was.
func (s *Session) CancelImport(table string) { s.Runs.Cancel(ImportKey(strings.TrimSpace(table))) }

func (s *Session) importInto(ctx context.Context, ws *workspace.Workspace, job Import) (catalog.Dataset, error) {
	if job.RowLimit == 0 {
		job.RowLimit = remote.DefaultImportRows
	}
	if job.Progress == nil {
		job.Progress = func(remote.ImportProgress) {}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	key := ImportKey(job.Table)
	if !s.Runs.Add(key, cancel) {
		return catalog.Dataset{}, NewError(CodeBusy, fmt.Sprintf("%s is already being imported.", job.Table), "Wait for it, or cancel it first.")
	}
	defer s.Runs.Remove(key)
	job.Progress(remote.ImportProgress{Table: job.Table, Phase: "connecting"})
	r, release, err := s.Conns.Open(ctx, job.Conn)
	if err != nil {
		return catalog.Dataset{}, err
	}
	defer release()
	d, err := remote.Import(ctx, ws.Engine, r.Source, job.SQL, remote.ImportOptions{Table: job.Table, Replace: job.Replace,
		MaxRows: job.RowLimit, Origin: remote.Label(job.Conn), Progress: job.Progress})
	if err != nil {
		return d, err
	}
	s.Local.Changed(ctx, ws)
	return d, nil
}

// ImportedFrom returns the connection the dataset d was imported from,
// and whether it was (its record holds the query).
func ImportedFrom(d catalog.Dataset) (string, bool) {
	name := remote.LabelName(d.Source)
	return name, name != "" && d.Part != ""
}

// RefreshImport runs the query the dataset d was imported with again on
// its connection, with the same row limit (the default for imports
// recorded before limits were), replacing d as Import does (progress goes
// to progress; CancelImport stops it; on any failure d stays as it was).
// It connects anew, to read the database as it is now, in ws, the
// workspace the caller holds. A connection removed (or renamed) since is
// CodeNotFound saying what to do.
func (s *Session) RefreshImport(ctx context.Context, ws *workspace.Workspace, d catalog.Dataset, progress func(remote.ImportProgress)) error {
	name, ok := ImportedFrom(d)
	if !ok {
		return NewError(CodeInvalid, fmt.Sprintf("%s was not imported from a connection.", d.Name), "")
	}
	if _, err := s.Conns.Profile(name); err != nil {
		if e, ok := err.(*Error); ok && e.Code == CodeNotFound {
			return &Error{Code: CodeNotFound,
				Message: fmt.Sprintf("%s cannot be refreshed: the connection %s was removed.", d.Name, name),
				Hint:    fmt.Sprintf("Add the connection %s again (Databases in the sidebar), or remove this dataset.", name), Err: err}
		}
		return err
	}
	// Connect afresh: an open SQLite file is read as immutable, so only a
	// new open sees the rows written to it since.
	s.Conns.Pool.Evict(name)
	_, err := s.importInto(ctx, ws, Import{Conn: name, SQL: d.Part, Table: d.Name, RowLimit: int(d.MaxRows), Replace: true, Progress: progress})
	return err
}
