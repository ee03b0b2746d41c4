package remote

import (
	"context"
	"errors"
	"time"

	"github.com/loupeapp/loupe/data/query"
)

// Collect runs text on s with Stream and returns a result with the same
// shape and caps as a workspace query: at most lim.MaxRows rows and about
// lim.MaxBytes bytes of values. Rows past the caps are read and counted,
// not kept, so RowCount is the full number of rows — except when the time
// limit ends the statement while it is only counting: the rows kept are
// then returned, Truncated, with RowCount the rows seen so far (a lower
// bound).
func Collect(ctx context.Context, s Source, text string, lim query.Limits) (*query.Result, error) {
	lim = Defaults(lim)
	start := time.Now()
	res := &query.Result{Rows: [][]any{}}
	bytes := 0
	err := s.Stream(ctx, text, lim.Timeout, Visitor{
		Columns: func(cols []query.Column) error {
			res.Columns = cols
			return nil
		},
		Row: func(row []any) error {
			res.RowCount++
			if res.Truncated || len(res.Rows) >= lim.MaxRows || bytes >= lim.MaxBytes {
				res.Truncated = true
				return nil
			}
			kept := make([]any, len(row))
			copy(kept, row)
			for _, v := range kept {
				bytes += query.Size(v)
			}
			res.Rows = append(res.Rows, kept)
			return nil
		},
	})
	if err != nil {
		var te *query.TimeoutError
		if !(res.Truncated && errors.As(err, &te)) {
			return nil, err
		}
	}
	if res.Columns == nil {
		res.Columns = []query.Column{}
	}
	res.Elapsed = time.Since(start)
	res.ElapsedMS = float64(res.Elapsed.Microseconds()) / 1000
	return res, nil
}
