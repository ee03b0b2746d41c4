package query_test

import (
	"context"
	"database/sql"
	"sort"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/query"
)

// The guard's overhead on a trivial query: the same statements through
// Runner.Run (split, syntax tree, prepare, read-only transaction, caps)
// and straight on the engine's pool. scripts/bench.sh prints the added
// time from BenchmarkGuardedTrivial and BenchmarkRawTrivial (target: at
// most 2 ms).

const (
	pointQuery = `SELECT * FROM t WHERE id = 7`
	constQuery = `SELECT 42`
)

func runGuarded(tb testing.TB, r *query.Runner, q string) {
	res, err := r.Run(context.Background(), q, query.Limits{})
	if err != nil || len(res.Rows) != 1 {
		tb.Fatalf("%s: %v %v", q, res, err)
	}
}

func runRaw(tb testing.TB, db *sql.DB, q string) {
	rows, err := db.QueryContext(context.Background(), q)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			tb.Fatal(err)
		}
		n++
	}
	if err := rows.Err(); err != nil || n != 1 {
		tb.Fatalf("%s: %d rows, %v", q, n, err)
	}
}

func BenchmarkGuardedTrivial(b *testing.B) {
	f := newFixture(b)
	runGuarded(b, f.run, pointQuery)
	for b.Loop() {
		runGuarded(b, f.run, pointQuery)
	}
}

func BenchmarkRawTrivial(b *testing.B) {
	f := newFixture(b)
	runRaw(b, f.eng.DB(), pointQuery)
	for b.Loop() {
		runRaw(b, f.eng.DB(), pointQuery)
	}
}

// BenchmarkTrivialConst is SELECT 42 both ways (its sub-benchmark names
// stay out of bench.sh's Guarded/Raw pairing).
func BenchmarkTrivialConst(b *testing.B) {
	f := newFixture(b)
	b.Run("guarded", func(b *testing.B) {
		for b.Loop() {
			runGuarded(b, f.run, constQuery)
		}
	})
	b.Run("raw", func(b *testing.B) {
		for b.Loop() {
			runRaw(b, f.eng.DB(), constQuery)
		}
	})
}

// TestGuardOverhead prints the median time of the trivial queries with and
// without the guard. It is a report, not a timed test: it never fails on
// time (these machines are shared and noisy); scripts/bench.sh is where
// the numbers are compared.
func TestGuardOverhead(t *testing.T) {
	if testing.Short() {
		t.Skip("report only")
	}
	f := newFixture(t)
	median := func(fn func()) time.Duration {
		const n = 300
		d := make([]time.Duration, n)
		for i := range d {
			began := time.Now()
			fn()
			d[i] = time.Since(began)
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[n/2]
	}
	for _, q := range []string{constQuery, pointQuery} {
		runGuarded(t, f.run, q)
		runRaw(t, f.eng.DB(), q)
		g := median(func() { runGuarded(t, f.run, q) })
		r := median(func() { runRaw(t, f.eng.DB(), q) })
		t.Logf("%-30s guarded %8s  raw %8s  added %8s (target <= 2ms)", q, g.Round(time.Microsecond), r.Round(time.Microsecond), (g - r).Round(time.Microsecond))
	}
}
