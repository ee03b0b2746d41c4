package app

import (
	"fmt"

	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/results"
)

// Result export formats beside CSV (ExportCSV).
const (
	ExportXLSX    = session.ExportXLSX
	ExportParquet = session.ExportParquet
)

// ExportResult saves the rows held of a result (console, answer) through
// the native save dialog as "xlsx" (one sheet: typed cells, a bold header
// row, columns sized to their content) or "parquet" (every column with
// its SQL type). It returns the path written, or nil when the dialog was
// canceled. The file is written whole or not at all.
func (a *App) ExportResult(ref, format string) (*string, error) {
	var o DialogOptions
	switch format {
	case ExportXLSX:
		o = DialogOptions{Title: "Export as Excel workbook", DefaultName: "result.xlsx", Filters: []FileFilter{{Name: "Excel workbooks", Pattern: "*.xlsx"}}}
	case ExportParquet:
		o = DialogOptions{Title: "Export as Parquet", DefaultName: "result.parquet", Filters: []FileFilter{{Name: "Parquet files", Pattern: "*.parquet"}}}
	default:
		return nil, newError(CodeInvalid, fmt.Sprintf("Unknown export format %q.", format), `Use "xlsx" or "parquet" (or Export CSV).`)
	}
	e, err := a.s.Results.Get(results.Ref(ref))
	if err != nil {
		return nil, wrap(err)
	}
	path, err := a.opts.Dialogs.SaveFile(o)
	if err != nil || path == "" {
		return nil, wrap(err)
	}
	if err := session.WriteResult(a.life, e, format, path); err != nil {
		return nil, err
	}
	return &path, nil
}
