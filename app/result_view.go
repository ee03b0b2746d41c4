package app

import (
	"context"

	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
)

// SortOrder sorts a result by one column (results.Order).
type SortOrder struct {
	Column string `json:"column"`
	Desc   bool   `json:"desc"`
}

// ColumnFilter keeps the rows whose column passes op with value
// (results.Filter): "contains", or "=", "!=", "<", "<=", ">", ">=" on a
// numeric column.
type ColumnFilter struct {
	Column string `json:"column"`
	Op     string `json:"op"`
	Value  string `json:"value"`
}

// ResultView is how the grid asks for a result sorted and filtered.
type ResultView struct {
	Sort    []SortOrder    `json:"sort"`
	Filters []ColumnFilter `json:"filters"`
}

// ViewedResult is a sorted and filtered view of a result, held as a result
// of its own. Of is the rows the viewed result's query produced. HeldOnly
// means the view covers only the rows the result held (it was cut and its
// query cannot run again here); FromQuery that the query ran again in
// DuckDB to make it.
type ViewedResult struct {
	Result    QueryResult `json:"result"`
	Of        int64       `json:"of"`
	HeldOnly  bool        `json:"heldOnly"`
	FromQuery bool        `json:"fromQuery"`
}

// ColumnSummary sums up one column (results.ColumnSummary).
type ColumnSummary struct {
	Column   string   `json:"column"`
	Count    int      `json:"count"`
	Nulls    int      `json:"nulls"`
	Distinct int      `json:"distinct"`
	Min      *float64 `json:"min"`
	Max      *float64 `json:"max"`
	Mean     *float64 `json:"mean"`
}

// ResultSummary is every column's summary over Rows rows held of a result
// whose query produced Total; Partial when Rows < Total.
type ResultSummary struct {
	Rows    int             `json:"rows"`
	Total   int64           `json:"total"`
	Partial bool            `json:"partial"`
	Columns []ColumnSummary `json:"columns"`
}

// ViewResult sorts and filters the result ref (session.ViewResult): in
// memory when it is held whole, in DuckDB over every row when a cut
// result's query can run again here, else over the rows held (HeldOnly).
// Errors: "not_found" (ref no longer held), "invalid" (a column or filter
// that does not fit), and the query's errors when it runs again.
func (a *App) ViewResult(ref string, view ResultView) (*ViewedResult, error) {
	v := results.View{}
	for _, o := range view.Sort {
		v.Sort = append(v.Sort, results.Order{Column: o.Column, Desc: o.Desc})
	}
	for _, f := range view.Filters {
		v.Filters = append(v.Filters, results.Filter{Column: f.Column, Op: f.Op, Value: f.Value})
	}
	var out *ViewedResult
	err := a.s.Local.Use(func(ctx context.Context, ws *workspace.Workspace) error {
		got, err := a.s.ViewResult(ctx, ws, ref, v)
		if err != nil {
			return err
		}
		qr, _ := queryResult(&got.Held, nil)
		out = &ViewedResult{Result: *qr, Of: got.Of, HeldOnly: got.HeldOnly, FromQuery: got.FromQuery}
		return nil
	})
	return out, wrap(err)
}

// SummarizeResult sums up each column of the result ref: count, NULLs,
// distinct values, and min, max and mean of numbers, over the rows held.
func (a *App) SummarizeResult(ref string) (*ResultSummary, error) {
	s, err := a.s.SummarizeResult(ref)
	if err != nil {
		return nil, wrap(err)
	}
	out := &ResultSummary{Rows: s.Rows, Total: s.Total, Partial: s.Partial, Columns: make([]ColumnSummary, len(s.Columns))}
	for i, c := range s.Columns {
		out.Columns[i] = ColumnSummary{Column: c.Column, Count: c.Count, Nulls: c.Nulls, Distinct: c.Distinct, Min: c.Min, Max: c.Max, Mean: c.Mean}
	}
	return out, nil
}
