package session

import (
	"bufio"
	"context"
	"errors"

	"github.com/loupeapp/loupe/data/export"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/store"
	"github.com/loupeapp/loupe/data/workspace"
)

// ExportDataset writes every row of the dataset name (not a preview's
// first rows) to a CSV file at the path choose returns ("" when the user
// canceled: nothing is written), and returns the path and the rows
// written. An unknown name is CodeNotFound; a file that cannot be
// written, CodeFile.
func (s *Session) ExportDataset(name string, choose func() (string, error)) (path string, rows int64, err error) {
	err = s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		if _, err := Dataset(ctx, ws, name); err != nil {
			return err
		}
		if path, err = choose(); err != nil || path == "" {
			return err
		}
		n, err := export.Table(ctx, ws.Engine, name, path)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return FileError(path, "cannot write the CSV file", err)
		}
		rows = n
		return nil
	})
	if err != nil {
		return "", 0, err
	}
	return path, rows, nil
}

// ReportToExport is the report last written for run runID, read from the
// conversation store (so it works after a restart), with the store; none
// is CodeNotFound.
func (s *Session) ReportToExport(ctx context.Context, runID string) (*StoredReport, *store.Store, error) {
	st, err := s.Chats.Store()
	if err != nil {
		return nil, nil, err
	}
	r, err := ReportOfRun(ctx, st, runID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && r == nil) {
		return nil, nil, NewError(CodeNotFound, "No report was written for this run.", "Write the report first.")
	}
	if err != nil {
		return nil, nil, Wrap(err)
	}
	return r, st, nil
}

// ExportTo writes the report r of run runID in the form kind (ExportFolder,
// ExportHTML, ExportPDF or ExportXLSX) to path and records the export with
// it; it returns what was written (the folder, or the file). A report
// written but whose export could not be recorded is returned, and the
// failure logged.
func (s *Session) ExportTo(ctx context.Context, st *store.Store, runID string, r *StoredReport, kind, path string) (string, error) {
	files, err := Export(ctx, st, r, kind, path)
	out := files.HTML
	switch kind {
	case ExportFolder:
		out = files.Dir
	case ExportPDF:
		out = files.PDF
	case ExportXLSX:
		out = files.XLSX
	}
	if out == "" {
		return "", Wrap(err)
	}
	if err != nil { // written, but not recorded with the report
		s.Log.Error("record a report export", "run", runID, "err", err)
	}
	return out, nil
}

// Result export formats beside CSV.
const (
	ExportXLSX    = "xlsx"
	ExportParquet = "parquet"
)

// WriteResult writes the rows held of the result e to path as format
// (ExportXLSX: one sheet of typed cells, written whole or not at all;
// ExportParquet: every column with its SQL type); a file that cannot be
// written is CodeFile.
func WriteResult(ctx context.Context, e *results.Entry, format, path string) error {
	var err error
	if format == ExportXLSX {
		err = WriteFileAtomic(path, 0o644, func(w *bufio.Writer) error { return results.WriteXLSX(w, e.Columns, e.Rows) })
	} else {
		err = results.WriteParquet(ctx, path, e.Columns, e.Rows)
	}
	if err != nil {
		return FileError(path, "cannot write the "+format+" file", err)
	}
	return nil
}
