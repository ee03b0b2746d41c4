#!/usr/bin/env bash
# Many small files (issue 25): loads N small CSVs (200 rows, 5 columns) one
# by one into a fresh workspace for each N in $LOUPE_BENCH_MANY (default
# 100,1000; 10,000 takes the better part of 10 minutes on a busy 2-core
# machine) and prints ratios, because these machines are noisy:
#   - per-file cost of the last hundred against the first hundred of the
#     largest run (linear is 1; target <= 1.3),
#   - total time of the largest run against (largest/smallest) times the
#     smallest (linear is 1; the issue's "1,000 vs 10 x 100 <= 1.1"),
#   - the time to open the full workspace and list its datasets,
#   - the workspace's size against its CSVs' (target < 3).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .cache/bench
export LOUPE_BENCH_MANY=${LOUPE_BENCH_MANY:-100,1000}
go test -c -o .cache/bench/load.test ./data/load
out=$( (cd data/load && ../../.cache/bench/load.test -test.run '^$' -test.bench '^BenchmarkManyFiles$' -test.benchtime 1x -test.count 1 -test.timeout 120m) | grep '^BenchmarkManyFiles')
printf '%s\n' "$out" >> .cache/bench/last.txt
printf '%s\n' "$out" | awk '
  function metric(name,   i) { for (i = 5; i < NF; i += 2) if ($(i + 1) == name) return $i; return "" }
  {
    n = $1; sub(/^BenchmarkManyFiles\/n=/, "", n); sub(/-[0-9]+$/, "", n); n += 0
    ns[n] = $3; ratio[n] = metric("last/first"); perfile[n] = metric("ms/file")
    open[n] = metric("open+list-ms"); size[n] = metric("ws/csv")
    if (lo == "" || n < lo) lo = n
    if (hi == "" || n > hi) hi = n
  }
  END {
    for (n in ns) printf "many files: %d small CSVs in %.1f s (%.1f ms/file); open + list %.0f ms; workspace %.1fx its CSVs\n", n, ns[n] / 1e9, perfile[n], open[n], size[n]
    printf "many files: per-file cost, last 100 vs first 100 of %d: %.2f (target <= 1.3)\n", hi, ratio[hi]
    if (hi != lo) printf "many files: %d files vs %d x %d files: %.2f (linear 1.0; target <= 1.1)\n", hi, hi / lo, lo, ns[hi] / (ns[lo] * hi / lo)
  }'
