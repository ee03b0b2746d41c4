package query_test

import (
	"context"
	"database/sql"
	"testing"

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
