package joins_test

import (
	"testing"

	"github.com/loupeapp/loupe/data/index/indextest"
	"github.com/loupeapp/loupe/data/joins"
)

// BenchmarkCandidates10k proposes join paths among 10,000 synthetic
// tables: names and types only, no values read.
func BenchmarkCandidates10k(b *testing.B) {
	tables := indextest.Synthetic(10_000, 1)
	var n int
	for b.Loop() {
		n = len(joins.Candidates(tables))
	}
	b.ReportMetric(float64(n), "paths")
}
