#!/usr/bin/env bash
# Start-up with many datasets (issue 25): opens a workspace of N small CSVs
# kept as views (default 100 and 10,000; LOUPE_BENCH_STARTUP) and lists
# them as the window does, against a bare DuckDB open of the same file
# measured in the same iterations (what DuckDB's reading of its own
# catalog costs), wall and CPU time (user+sys, less noisy on a shared
# machine). Target: under 0.5 s at 10,000.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .cache/bench
export LOUPE_BENCH_STARTUP=${LOUPE_BENCH_STARTUP:-100,10000}
go test -c -o .cache/bench/workspace.test ./data/workspace
out=$( (cd data/workspace && ../../.cache/bench/workspace.test -test.run '^$' -test.bench '^BenchmarkStartup$' -test.benchtime "${BENCH_STARTUP_TIMES:-3}x" -test.count 1 -test.timeout 60m) | grep '^BenchmarkStartup')
printf '%s\n' "$out" >> .cache/bench/last.txt
printf '%s\n' "$out" | awk '
  function metric(name,   i) { for (i = 5; i < NF; i += 2) if ($(i + 1) == name) return $i; return "" }
  {
    n = $1; sub(/^BenchmarkStartup\/n=/, "", n); sub(/-[0-9]+$/, "", n)
    printf "startup: %d datasets: open + list %.0f ms (CPU %.0f ms) vs bare DuckDB open %.0f ms (CPU %.0f ms), ratio %.2f; every record decoded %.0f ms\n", n, metric("open+summaries-ms"), metric("open+summaries-cpu-ms"), metric("bare-open-ms"), metric("bare-open-cpu-ms"), metric("vs-bare"), metric("records-ms")
  }'
