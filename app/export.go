package app

import (
	"context"

	"github.com/loupeapp/loupe/data/export"
	"github.com/loupeapp/loupe/data/workspace"
)

// ExportedFile is a file an export wrote and the rows it holds.
type ExportedFile struct {
	Path string `json:"path"`
	Rows int64  `json:"rows"`
}

// ExportDataset writes every row of the dataset name (not the preview's
// first rows) to a CSV file chosen in the native save dialog, suggested as
// "<name>.csv". It returns the file and its rows, or nil when the dialog
// was canceled. Errors: not_found for an unknown dataset.
func (a *App) ExportDataset(name string) (*ExportedFile, error) {
	var out *ExportedFile
	err := a.s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		if _, err := dataset(ctx, ws, name); err != nil {
			return err
		}
		path, err := a.opts.Dialogs.SaveFile(DialogOptions{Title: "Export " + name + " as CSV", DefaultName: name + ".csv",
			Filters: []FileFilter{{Name: "CSV files", Pattern: "*.csv"}}})
		if err != nil || path == "" {
			return err
		}
		n, err := export.Table(ctx, ws.Engine, name, path)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fileError(path, "cannot write the CSV file", err)
		}
		out = &ExportedFile{Path: path, Rows: n}
		return nil
	})
	return out, wrap(err)
}
