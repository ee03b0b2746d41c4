package load_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/workspace"
)

// BenchmarkQueryWide runs the same query (two columns, every row) on the
// narrow and the wide file of BenchmarkLoadWide, each loaded once: what
// a query pays for the width of the dataset it reads. A file that wide is
// stored in the wide layout (see data/load's wide.go), a view over its
// parts that DuckDB binds whole at every query. `make bench` prints wide
// against narrow.
func BenchmarkQueryWide(b *testing.B) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := context.Background()
	for _, f := range []struct {
		name       string
		cols, rows int
	}{{"narrow", 10, 20000}, {"wide", 10000, 20}} {
		b.Run(f.name, func(b *testing.B) {
			b.StopTimer()
			w, err := workspace.Open(ctx, b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			ds, err := w.Loader.Load(ctx, wideCSV(b, f.cols, f.rows), load.Options{})
			if err != nil {
				b.Fatal(err)
			}
			q := fmt.Sprintf("SELECT c0, c%d FROM %s", f.cols-1, ds[0].Name)
			b.StartTimer()
			for b.Loop() {
				if _, err := w.Query.Run(ctx, q, query.Limits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
