package session

import (
	"context"

	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/data/workspace"
)

// ViewOf is a sorted and filtered view of a held result (ViewResult).
// Held is true when the view was made from the rows held only, because
// the result was cut and its query cannot run again here (a remote
// source's): Rows then counts the held rows that pass, out of the Of
// rows the query produced. Otherwise the view covers every row the query
// produces.
type ViewOf struct {
	Held
	Of        int64
	HeldOnly  bool
	FromQuery bool // the view ran the query again in DuckDB
}

// ViewResult sorts and filters the result ref by v and holds the view as
// a result of its own (its first page, which names its ref). A result
// held whole is viewed in memory; a cut result of the workspace's DuckDB
// runs again there, wrapped in v's filters and order (results.View.SQL,
// through the guard), keeping as many rows as the result held; any other
// cut result is viewed over its held rows, and says so (HeldOnly). An
// empty view returns ref itself. Errors: CodeNotFound for a ref no longer
// held, CodeInvalid for a view that does not fit its columns.
func (s *Session) ViewResult(ctx context.Context, ws *workspace.Workspace, ref string, v results.View) (*ViewOf, error) {
	e, err := s.Results.Get(results.Ref(ref))
	if err != nil {
		return nil, err
	}
	if v.Empty() {
		p, err := s.Results.Page(e.Ref, 0, FirstPage)
		if err != nil {
			return nil, err
		}
		return &ViewOf{Held: Held{Page: p}, Of: e.Total, HeldOnly: false}, nil
	}
	if e.Truncated && e.Local && ws != nil {
		sql, err := v.SQL(e.SQL, e.Columns)
		if err != nil {
			return nil, err
		}
		h, err := s.RunQuery(ctx, ws, sql, query.Limits{MaxRows: max(e.Kept(), FirstPage), MaxBytes: ConsoleLimits.MaxBytes})
		if err != nil {
			return nil, err
		}
		return &ViewOf{Held: *h, Of: e.Total, FromQuery: true}, nil
	}
	rows, err := v.Apply(e.Columns, e.Rows)
	if err != nil {
		return nil, err
	}
	vref := s.Results.Put(&query.Result{Columns: e.Columns, Rows: rows, RowCount: int64(len(rows))}, e.SQL)
	p, err := s.Results.Page(vref, 0, FirstPage)
	if err != nil {
		return nil, err
	}
	return &ViewOf{Held: Held{Page: p}, Of: e.Total, HeldOnly: e.Truncated}, nil
}

// SummarizeResult sums up each column of the rows held of ref
// (results.Summarize): over the whole result when it is held whole,
// else over its held rows (Summary.Partial).
func (s *Session) SummarizeResult(ref string) (results.Summary, error) {
	e, err := s.Results.Get(results.Ref(ref))
	if err != nil {
		return results.Summary{}, err
	}
	return results.Summarize(e), nil
}
