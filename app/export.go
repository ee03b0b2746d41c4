package app

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
	path, rows, err := a.s.ExportDataset(name, func() (string, error) {
		return a.opts.Dialogs.SaveFile(DialogOptions{Title: "Export " + name + " as CSV", DefaultName: name + ".csv",
			Filters: []FileFilter{{Name: "CSV files", Pattern: "*.csv"}}})
	})
	if err != nil || path == "" {
		return nil, wrap(err)
	}
	return &ExportedFile{Path: path, Rows: rows}, nil
}
