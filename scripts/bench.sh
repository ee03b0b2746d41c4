#!/usr/bin/env bash
# Benchmarks, each against a baseline measured in the same run, printed as
# ratios (these machines are shared and noisy: compare ratios, not times).
#   LOUPE_BENCH_ROWS  rows of the generated CSV (default 10,000,000 ≈ 1 GB)
#   BENCH_COUNT       repetitions, medians are compared (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${LOUPE_BENCH_ROWS:-10000000}
count=${BENCH_COUNT:-3}
mkdir -p .cache/bench
export LOUPE_BENCH_DIR=$PWD/.cache/bench LOUPE_BENCH_ROWS=$rows
out=.cache/bench/last.txt
: > "$out"
echo "== guard + execution overhead (trivial query)"
go test ./data/query -run '^$' -bench 'Trivial' -benchtime 2000x -count "$count" | tee -a "$out"
echo "== CSV load, $rows rows"
go test ./data/load -run '^$' -bench 'LoadCSV' -benchtime 1x -count "$count" -timeout 60m | tee -a "$out"
echo
echo "== ratios (median of $count)"
awk '
  /^Benchmark/ { name=$1; sub(/-[0-9]+$/, "", name); v[name]=v[name] " " $3 }
  function median(s,   a, n, i, j, t) {
    n = split(s, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    for (k in v) m[k] = median(v[k])
    if (("BenchmarkLoadCSV/loupe" in m) && ("BenchmarkLoadCSV/duckdb_ctas" in m))
      printf "load CSV: loupe %.2f s vs DuckDB CTAS %.2f s  ratio %.3f (target <= 1.15)\n", m["BenchmarkLoadCSV/loupe"]/1e9, m["BenchmarkLoadCSV/duckdb_ctas"]/1e9, m["BenchmarkLoadCSV/loupe"]/m["BenchmarkLoadCSV/duckdb_ctas"]
    for (k in m) if (k ~ /Guarded/) { g = m[k]; gk = k }
    for (k in m) if (k ~ /Raw/) { r = m[k]; rk = k }
    if (g && r)
      printf "guarded query: %.3f ms vs raw %.3f ms  added %.3f ms (target <= 2 ms)\n", g/1e6, r/1e6, (g-r)/1e6
  }' "$out"
