package workspace_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/loupeapp/loupe/data/catalog"
	"github.com/loupeapp/loupe/data/duck"
	"github.com/loupeapp/loupe/data/workspace"
)

// manySmall makes a workspace in dir holding n datasets as a load of n
// small CSVs of one shape leaves them: each a view over its private copy
// in the import folder through their reader (a table macro holding
// read_csv with the sniffed dialect and columns), with a profiled record
// of five columns. It is quicker than loading n files (one transaction).
func manySmall(tb testing.TB, dir string, n int) {
	tb.Helper()
	ctx := context.Background()
	w, err := workspace.Open(ctx, dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	imp := w.Engine.ImportDir()
	str := func(s string) *string { return &s }
	var b strings.Builder
	err = w.Engine.Write(ctx, func(c *duckdb.Conn) error {
		if err := duck.Exec(ctx, c, "BEGIN TRANSACTION"); err != nil {
			return err
		}
		// The reader of their shape, as data/load's viewOver makes it.
		reader := "csv_bench0000000000000000"
		q := "CREATE MACRO _loupe." + reader + "(path) AS TABLE SELECT * FROM read_csv(path, auto_detect=false, delim=',', quote='\"', escape='\"', new_line='\\n', skip=0, header=true, " +
			"columns={'order_id': 'BIGINT', 'store': 'VARCHAR', 'amount': 'DOUBLE', 'day': 'DATE', 'returned': 'BOOLEAN'}, parallel=false, hive_partitioning = false)"
		if err := duck.Exec(ctx, c, q); err != nil {
			return err
		}
		for i := range n {
			name := "store_" + strconv.Itoa(i)
			b.Reset()
			b.WriteString("order_id,store,amount,day,returned\n")
			for r := range 200 {
				fmt.Fprintf(&b, "%d,store %d,%d.%02d,2024-%02d-%02d,%t\n", i*1000+r, i, (i*31+r*17)%1000, r%100, 1+r%12, 1+r%28, r%7 == 0)
			}
			copyPath := filepath.Join(imp, fmt.Sprintf("%s-%s-%08x.csv", name, strconv.FormatInt(int64(i)+1e12, 36), i))
			if err := os.WriteFile(copyPath, []byte(b.String()), 0o600); err != nil {
				return err
			}
			q := "CREATE VIEW " + name + " AS SELECT * FROM _loupe." + reader + "(" + duck.QuoteString(copyPath) + ")"
			if err := duck.Exec(ctx, c, q); err != nil {
				return err
			}
			d := catalog.Dataset{Name: name, Kind: "csv", Source: "/data/stores/" + name + ".csv", Rows: 200, SizeBytes: int64(b.Len()),
				Storage: "view", Staged: copyPath, Reader: reader, Profiled: true, LoadedAt: time.Now().UTC(), ModTime: time.Now().UTC(),
				Columns: []catalog.Column{
					{Name: "order_id", Type: "BIGINT", Distinct: 200, Min: str("0"), Max: str("199"), Samples: []string{"0", "1", "2"}},
					{Name: "store", Type: "VARCHAR", Distinct: 1, Top: []catalog.Value{{Value: "store " + strconv.Itoa(i), Count: 200}}, Samples: []string{"store 0"}},
					{Name: "amount", Type: "DOUBLE", Distinct: 200, Min: str("0.0"), Max: str("998.99"), Samples: []string{"0.0", "17.01", "34.02"}},
					{Name: "day", Type: "DATE", Distinct: 28, Min: str("2024-01-01"), Max: str("2024-12-28"), Samples: []string{"2024-01-01"}},
					{Name: "returned", Type: "BOOLEAN", Distinct: 2, Top: []catalog.Value{{Value: "false", Count: 171}, {Value: "true", Count: 29}}},
				}}
			if err := catalog.Put(ctx, c, d); err != nil {
				return err
			}
		}
		return duck.Exec(ctx, c, "COMMIT")
	})
	if err != nil {
		tb.Fatalf("make %d datasets: %v", n, err)
	}
}

// BenchmarkStartup opens a workspace of $LOUPE_BENCH_STARTUP datasets
// (default 100 and 10,000 small CSVs kept as views) and lists them: the
// time of open, of the summaries (catalog.Summaries, no record decoded),
// and of the whole records (catalog.List, every record decoded). Its
// baseline, measured in the same iterations, is a bare DuckDB open of
// the same file (duck.Open, one SELECT 1), which is what DuckDB's reading
// of its own catalog costs; the CPU time (user+sys of the process) of
// both is reported too, being less noisy than the wall time on a shared
// machine. scripts/bench-startup.sh prints the ratios.
func BenchmarkStartup(b *testing.B) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	counts := []int{100, 10000}
	if s := os.Getenv("LOUPE_BENCH_STARTUP"); s != "" {
		counts = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				b.Fatalf("LOUPE_BENCH_STARTUP=%q: want counts like 100,10000", s)
			}
			counts = append(counts, n)
		}
	}
	ctx := context.Background()
	for _, n := range counts {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			dir := b.TempDir()
			manySmall(b, dir, n)
			var open, list, full, bare, openCPU, bareCPU time.Duration
			b.ResetTimer()
			for range b.N {
				start, cpu := time.Now(), cpuTime()
				e, err := duck.Open(ctx, dir)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := e.DB().ExecContext(ctx, "SELECT 1"); err != nil {
					b.Fatal(err)
				}
				bare += time.Since(start)
				bareCPU += cpuTime() - cpu
				b.StopTimer()
				_ = e.Close()
				b.StartTimer()
				start, cpu = time.Now(), cpuTime()
				w, err := workspace.Open(ctx, dir)
				if err != nil {
					b.Fatal(err)
				}
				open += time.Since(start)
				t := time.Now()
				if _, err := w.Summaries(ctx); err != nil {
					b.Fatal(err)
				}
				list += time.Since(t)
				openCPU += cpuTime() - cpu
				t = time.Now()
				if _, err := catalog.List(ctx, w.Engine.DB()); err != nil {
					b.Fatal(err)
				}
				full += time.Since(t)
				b.StopTimer()
				<-w.ProfilingDone()
				_ = w.Close()
				b.StartTimer()
			}
			per := func(d time.Duration) float64 { return float64(d) / float64(b.N) / 1e6 }
			b.ReportMetric(per(open), "open-ms")
			b.ReportMetric(per(list), "summaries-ms")
			b.ReportMetric(per(open+list), "open+summaries-ms")
			b.ReportMetric(per(openCPU), "open+summaries-cpu-ms")
			b.ReportMetric(per(full), "records-ms")
			b.ReportMetric(per(bare), "bare-open-ms")
			b.ReportMetric(per(bareCPU), "bare-open-cpu-ms")
			b.ReportMetric(float64(open+list)/float64(bare), "vs-bare")
		})
	}
}
