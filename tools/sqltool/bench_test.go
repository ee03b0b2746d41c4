package sqltool_test

import (
	"context"
	"testing"

	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/results"
	"github.com/loupeapp/loupe/tools/sqltool"
)

// cannedRunner returns the same result every time, so a benchmark through
// it measures the tool alone.
type cannedRunner struct{ res *query.Result }

func (c cannedRunner) Run(context.Context, string, query.Limits) (*query.Result, error) {
	r := *c.res
	return &r, nil
}

// BenchmarkRunSQLOverhead is run_sql's cost over the guarded runner it
// wraps, for a trivial query: argument decoding, the results store, the
// preview and the display. Compare the two sub-benchmarks' ns/op in one
// run; the difference is the tool's overhead.
func BenchmarkRunSQLOverhead(b *testing.B) {
	e := setup(b, sqltool.Config{})
	const q = `SELECT * FROM orders WHERE order_id = 7`
	args := []byte(`{"sql": "SELECT * FROM orders WHERE order_id = 7", "purpose": "bench"}`)
	ctx := context.Background()
	b.Run("runner", func(b *testing.B) {
		for b.Loop() {
			res, err := e.ws.Query.Run(ctx, q, query.Limits{})
			if err != nil || len(res.Rows) != 1 {
				b.Fatal(res, err)
			}
		}
	})
	b.Run("tool", func(b *testing.B) {
		for b.Loop() {
			r, err := e.tool.Run(ctx, args)
			if err != nil || r.Failed || r.Display.Table.Rows != 1 {
				b.Fatal(r.ForModel, err)
			}
		}
	})
}

// BenchmarkRunSQLToolOnly is the tool's own work per call, with the query
// itself replaced by a canned one-row result of the same query: the
// overhead without DuckDB's noise.
func BenchmarkRunSQLToolOnly(b *testing.B) {
	e := setup(b, sqltool.Config{})
	res, err := e.ws.Query.Run(context.Background(), `SELECT * FROM orders WHERE order_id = 7`, query.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	tool := sqltool.New(cannedRunner{res}, e.ws, results.New(results.Config{}), sqltool.Config{})
	args := []byte(`{"sql": "SELECT * FROM orders WHERE order_id = 7", "purpose": "bench"}`)
	b.ReportAllocs()
	for b.Loop() {
		r, err := tool.Run(context.Background(), args)
		if err != nil || r.Failed || r.Display.Table.Rows != 1 {
			b.Fatal(r.ForModel, err)
		}
	}
}
