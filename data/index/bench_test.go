package index_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/index"
	"github.com/loupeapp/loupe/data/index/indextest"
)

// BenchmarkIndex10k builds the schema index of a synthetic 10,000-table
// workspace on disk and searches it. Figures: build_s (target ≤ 60),
// index_MB, search p50_ms and p95_ms over 500 questions (target p95 ≤ 20).
func BenchmarkIndex10k(b *testing.B) {
	ctx := context.Background()
	tables := indextest.Synthetic(10_000, 1)
	questions := indextest.SyntheticQuestions(500, 2)
	for b.Loop() {
		dir := b.TempDir()
		start := time.Now()
		idx, err := index.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := idx.Sync(ctx, index.Workspace, tables); err != nil {
			b.Fatal(err)
		}
		if err := idx.Close(); err != nil { // waits for the disk
			b.Fatal(err)
		}
		build := time.Since(start)
		if idx, err = index.Open(dir); err != nil {
			b.Fatal(err)
		}
		size, err := idx.Size()
		if err != nil {
			b.Fatal(err)
		}
		lat := make([]float64, 0, len(questions))
		for _, q := range questions {
			t0 := time.Now()
			hits, err := idx.Search(ctx, q, index.Options{K: 10})
			if err != nil {
				b.Fatal(err)
			}
			if len(hits) == 0 {
				b.Fatalf("nothing found for %q", q)
			}
			lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
		}
		idx.Close()
		slices.Sort(lat)
		b.ReportMetric(build.Seconds(), "build_s")
		b.ReportMetric(float64(size)/(1<<20), "index_MB")
		b.ReportMetric(lat[len(lat)/2], "p50_ms")
		b.ReportMetric(lat[len(lat)*95/100], "p95_ms")
	}
}
