package app

import (
	"bufio"
	"context"

	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
)

// Column is a result column.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Page is a window of a held result.
type Page struct {
	Offset int     `json:"offset"`
	Rows   [][]any `json:"rows"`
}

// QueryResult is a query's result as the UI gets it: the first page, and a
// reference to page through the rest. Rows is the total the query produced;
// Kept of them are held (Truncated when fewer than Rows).
type QueryResult struct {
	Ref       string   `json:"ref"`
	Columns   []Column `json:"columns"`
	Rows      int64    `json:"rows"`
	Kept      int      `json:"kept"`
	Truncated bool     `json:"truncated"`
	ElapsedMS float64  `json:"elapsedMs"`
	Page      Page     `json:"page"`
}

// maxPage is the rows one Page call returns at most.
const maxPage = 1000

// RunSQL runs one statement through the same guard as the agent, as the
// query of the console's default tab (RunConsoleSQL with tab ""):
// CancelSQL, or a new RunSQL, stops it. Errors: code "refused" (not
// read-only), "sql" (DuckDB's message, with its candidates and position as
// the hint), "timeout", "invalid" (empty), "canceled".
func (a *App) RunSQL(sql string) (*QueryResult, error) { return a.RunConsoleSQL("", sql) }

// queryResult is the QueryResult of a held result (session.Held).
func queryResult(h *session.Held, err error) (*QueryResult, error) {
	if err != nil {
		return nil, err
	}
	p := h.Page
	out := &QueryResult{Ref: string(p.Ref), Columns: make([]Column, len(p.Columns)), Rows: p.Total,
		Kept: p.Kept, Truncated: p.Truncated, ElapsedMS: h.ElapsedMS, Page: Page{Offset: 0, Rows: p.Rows}}
	for i, c := range p.Columns {
		out.Columns[i] = Column{Name: c.Name, Type: c.Type}
	}
	return out, nil
}

// Page returns up to limit rows (at most 1000; 0 means 100) of the result
// ref from offset. Results never cross the bridge whole. Works for the
// agent's tables (their display's table.ref) and for RunSQL's results.
func (a *App) Page(ref string, offset, limit int) (*Page, error) {
	if offset < 0 || limit < 0 {
		return nil, newError(CodeInvalid, "A page's offset and limit cannot be negative.", "")
	}
	p, err := a.s.Results.Page(results.Ref(ref), offset, min(limit, maxPage))
	if err != nil {
		return nil, wrap(err)
	}
	return &Page{Offset: p.Offset, Rows: p.Rows}, nil
}

// ExportCSV writes the held rows of the result ref to a CSV file chosen in
// the native save dialog. It returns the path written, or nil when the
// dialog was canceled.
func (a *App) ExportCSV(ref string) (*string, error) {
	e, err := a.s.Results.Get(results.Ref(ref))
	if err != nil {
		return nil, wrap(err)
	}
	path, err := a.opts.Dialogs.SaveFile(DialogOptions{Title: "Export as CSV", DefaultName: "result.csv",
		Filters: []FileFilter{{Name: "CSV files", Pattern: "*.csv"}}})
	if err != nil || path == "" {
		return nil, wrap(err)
	}
	// Cells that a spreadsheet would run as formulas are neutralised
	// (results.SafeCell). The file keeps normal permissions: it is the
	// user's, in a folder the user chose.
	err = session.WriteFileAtomic(path, 0o644, func(w *bufio.Writer) error {
		return results.WriteCSV(w, e.Columns, e.Rows)
	})
	if err != nil {
		return nil, fileError(path, "cannot write the CSV file", err)
	}
	return &path, nil
}

// SchemaTable is a dataset's name and columns, for SQL completion.
type SchemaTable struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
}

// SchemaNames is every dataset's name and columns.
type SchemaNames struct {
	Tables []SchemaTable `json:"tables"`
}

// SchemaNames returns the names the SQL console completes.
func (a *App) SchemaNames() (*SchemaNames, error) {
	out := &SchemaNames{Tables: []SchemaTable{}}
	err := a.s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		ds, err := ws.Datasets(ctx)
		for _, d := range ds {
			t := SchemaTable{Name: d.Name, Columns: make([]string, len(d.Columns))}
			for i, c := range d.Columns {
				t.Columns[i] = c.Name
			}
			out.Tables = append(out.Tables, t)
		}
		return err
	})
	return out, wrap(err)
}
