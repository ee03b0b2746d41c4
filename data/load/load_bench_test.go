package load_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/load"
	"github.com/loupeapp/loupe/data/workspace"
)

var (
	benchOnce sync.Once
	benchCSV  string
	benchErr  error
)

// benchFile writes (once per process) a CSV of mixed types with
// $LOUPE_BENCH_ROWS rows (default 200,000; `make bench` uses 10 M ≈ 1 GB).
// It lives in $LOUPE_BENCH_DIR when set, so that runs can reuse it.
func benchFile(b *testing.B) string {
	b.Helper()
	benchOnce.Do(func() {
		rows := 200_000
		if s := os.Getenv("LOUPE_BENCH_ROWS"); s != "" {
			rows, benchErr = strconv.Atoi(s)
			if benchErr != nil {
				return
			}
		}
		dir := os.Getenv("LOUPE_BENCH_DIR")
		if dir == "" {
			dir, benchErr = os.MkdirTemp("", "loupe-bench")
			if benchErr != nil {
				return
			}
		}
		benchCSV = filepath.Join(dir, fmt.Sprintf("mixed-%d.csv", rows))
		if _, err := os.Stat(benchCSV); err == nil {
			return
		}
		db, err := sql.Open("duckdb", "")
		if err != nil {
			benchErr = err
			return
		}
		defer db.Close()
		_, benchErr = db.Exec(fmt.Sprintf(`COPY (
			SELECT i AS order_id,
			       round(random() * 10000, 2) AS amount,
			       (['north','south','east','west','central'])[1 + i %% 5] AS region,
			       'customer ' || (i * 7919 %% 1000003) AS customer_name,
			       DATE '2020-01-01' + (i %% 1500)::INTEGER AS order_date,
			       TIMESTAMP '2020-01-01 00:00:00' + to_seconds(i %% 100000000) AS created_at,
			       i %% 3 = 0 AS returned,
			       (i %% 97) AS quantity
			FROM range(%d) t(i)) TO '%s' (HEADER, DELIMITER ',')`, rows, benchCSV))
	})
	if benchErr != nil {
		b.Fatalf("generate benchmark CSV: %v", benchErr)
	}
	return benchCSV
}

// BenchmarkLoadCSV compares a Loupe load (staging, sniffing, table,
// catalog statistics, all in one transaction) with DuckDB's own
// CREATE TABLE … AS SELECT * FROM read_csv(…) into a fresh database file
// through the same binding. `make bench` prints the ratio.
func BenchmarkLoadCSV(b *testing.B) {
	// The loader logs each load at INFO; keep benchmark lines parseable.
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	file := benchFile(b)
	ctx := context.Background()
	b.Run("duckdb_ctas", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			dir := b.TempDir()
			db, err := sql.Open("duckdb", filepath.Join(dir, "raw.duckdb"))
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := db.ExecContext(ctx, "CREATE TABLE t AS SELECT * FROM read_csv('"+file+"')"); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			_ = db.Close()
			b.StartTimer()
		}
	})
	b.Run("loupe", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			w, err := workspace.Open(ctx, b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := w.Loader.Load(ctx, file, load.Options{}); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			_ = w.Close()
			b.StartTimer()
		}
	})
}

// BenchmarkLoadWide loads the same number of cells (200,000 small
// integers) as a narrow file (10 columns × 20,000 rows) and as a wide one
// (10,000 columns × 20 rows), and the wide one with DuckDB's own CREATE
// TABLE … AS SELECT * FROM read_csv(…). `make bench` prints wide against
// narrow (what width costs a Loupe load) and Loupe against DuckDB on the
// wide file (what Loupe adds to it: staging, renaming, the profile).
func BenchmarkLoadWide(b *testing.B) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := context.Background()
	narrow, wide := wideCSV(b, 10, 20000), wideCSV(b, 10000, 20)
	loupe := func(file string) func(b *testing.B) {
		return func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				w, err := workspace.Open(ctx, b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := w.Loader.Load(ctx, file, load.Options{}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				_ = w.Close()
				b.StartTimer()
			}
		}
	}
	b.Run("narrow", loupe(narrow))
	b.Run("wide", loupe(wide))
	b.Run("wide_duckdb_ctas", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			db, err := sql.Open("duckdb", filepath.Join(b.TempDir(), "raw.duckdb"))
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := db.ExecContext(ctx, "CREATE TABLE t AS SELECT * FROM read_csv('"+wide+"')"); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			_ = db.Close()
			b.StartTimer()
		}
	})
}
