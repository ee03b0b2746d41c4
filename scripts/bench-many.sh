#!/usr/bin/env bash
# Many small files (issue 25): loads N small CSVs (200 rows, 5 columns) one
# by one into a fresh workspace for each N in $LOUPE_BENCH_MANY (default
# 100,1000,10000; 10,000 takes 3 to 6 minutes on a busy 2-core machine,
# and its baseline as long) and prints ratios, because these machines are
# noisy:
#   - against DuckDB alone making a table of each file (CREATE TABLE AS
#     read_csv, every option detected), measured right after in the same
#     run: the baseline,
#   - per-file cost of the last hundred against the first hundred of the
#     largest run (linear is 1; target <= 1.3),
#   - total time of each run against (its N / the previous N) times the
#     previous run's (linear is 1; the issue's "1,000 vs 10 x 100 <= 1.1"),
#   - the time to open the full workspace and list its datasets,
#   - the workspace's size against its CSVs' (target < 3).
# Per-file CPU time (user+sys) is printed too: it is less noisy than the
# wall time. Target: 10,000 files in under 240 s.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .cache/bench
export LOUPE_BENCH_MANY=${LOUPE_BENCH_MANY:-100,1000,10000}
go test -c -o .cache/bench/load.test ./data/load
out=$( (cd data/load && ../../.cache/bench/load.test -test.run '^$' -test.bench '^BenchmarkManyFiles$' -test.benchtime 1x -test.count 1 -test.timeout 120m) | grep '^BenchmarkManyFiles')
printf '%s\n' "$out" >> .cache/bench/last.txt
printf '%s\n' "$out" | awk '
  function metric(name,   i) { for (i = 5; i < NF; i += 2) if ($(i + 1) == name) return $i; return "" }
  {
    n = $1; sub(/^BenchmarkManyFiles\/n=/, "", n); sub(/-[0-9]+$/, "", n); n += 0
    ns[n] = $3; ratio[n] = metric("last/first"); perfile[n] = metric("ms/file"); cpu[n] = metric("cpu-ms/file")
    base[n] = metric("duckdb-ms/file"); vs[n] = metric("vs-duckdb")
    open[n] = metric("open+list-ms"); size[n] = metric("ws/csv")
    order[++k] = n
  }
  END {
    for (i = 1; i <= k; i++) {
      n = order[i]
      printf "many files: %d small CSVs in %.1f s (%.1f ms/file, CPU %.1f ms/file) vs DuckDB alone %.1f ms/file, ratio %.2f; open + list %.0f ms; workspace %.1fx its CSVs\n", n, ns[n] / 1e9, perfile[n], cpu[n], base[n], vs[n], open[n], size[n]
      if (i > 1) { p = order[i - 1]; printf "many files: %d files vs %d x %d files: %.2f (linear 1.0; target <= 1.1)\n", n, n / p, p, ns[n] / (ns[p] * n / p) }
    }
    hi = order[k]
    printf "many files: per-file cost, last 100 vs first 100 of %d: %.2f (target <= 1.3)\n", hi, ratio[hi]
  }'
