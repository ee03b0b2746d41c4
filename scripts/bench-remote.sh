#!/usr/bin/env bash
# Remote schema at scale: generates a PostgreSQL database of
# $LOUPE_BENCH_TABLES tables (default 5,000; created once on the test
# server started by scripts/dbservers.sh, tens of seconds the first time),
# then times discovering it, keeping its catalog and building its schema
# index from scratch (target: total <= 30 s), and reports the catalog and
# index sizes and the largest system prompt for a few questions (target:
# <= 4,000 tokens). Prints one summary line; the go test output is kept in
# .cache/bench/remote.txt.
#   LOUPE_BENCH_TABLES  tables in the generated schema (default 5000)
#   BENCH_COUNT         runs (default 3); the line shows the median run by total
set -euo pipefail
cd "$(dirname "$0")/.."
count=${BENCH_COUNT:-3}
mkdir -p .cache/bench
out=.cache/bench/remote.txt
go test ./app/retrieve -run '^$' -bench '^BenchmarkRemoteWide$' -benchtime 1x -count "$count" -timeout 30m > "$out" 2>&1 ||
  { cat "$out" >&2; exit 1; }
awk '/^BenchmarkRemoteWide/ {
       for (i = 5; i < NF; i += 2) v[$(i + 1)] = $i
       line[NR] = sprintf("remote schema: %d tables, discover %.2f s + catalog %.2f s + index %.2f s = %.2f s (target <= 30 s); catalog %.1f MB, index %.1f MB; largest prompt %d tokens (target <= 4,000); retrieval %.1f ms/question",
         v["tables"], v["discover_s"], v["catalog_s"], v["index_s"], v["total_s"], v["catalog_MB"], v["index_MB"], v["prompt_tokens"], v["retrieve_ms"])
       total[NR] = v["total_s"]; n++
     }
     END {
       if (n == 0) { print "remote schema: no benchmark result (see .cache/bench/remote.txt)" > "/dev/stderr"; exit 1 }
       # the median run by total time
       k = 0; for (r in total) ord[++k] = r
       for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (total[ord[j]] < total[ord[i]]) { t = ord[i]; ord[i] = ord[j]; ord[j] = t }
       print line[ord[int((k + 1) / 2)]]
     }' "$out"
