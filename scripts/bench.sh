#!/usr/bin/env bash
# Benchmarks, each against a baseline measured in the same run, printed as
# ratios. These machines are shared and noisy, so baseline and Loupe runs
# alternate (one pair per round) and the median of the per-round ratios is
# reported, not a ratio of separately measured times. Which of the pair
# goes first alternates too, and the disk is synced before each run, so
# neither side always inherits the other's write-back.
#   LOUPE_BENCH_ROWS  rows of the generated CSV (default 10,000,000 ≈ 1 GB)
#   BENCH_COUNT       rounds (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${LOUPE_BENCH_ROWS:-10000000}
count=${BENCH_COUNT:-5}
mkdir -p .cache/bench
export LOUPE_BENCH_DIR=$PWD/.cache/bench LOUPE_BENCH_ROWS=$rows
out=.cache/bench/last.txt
: > "$out"
go test -c -o .cache/bench/query.test ./data/query
go test -c -o .cache/bench/load.test ./data/load

# bench BIN PATTERN BENCHTIME: one run of one benchmark (from its package
# folder, as go test does), its ns/op on stdout.
bench() {
  sync
  (cd "data/${1%.test}" && "../../.cache/bench/$1" -test.run '^$' -test.bench "$2" -test.benchtime "$3" -test.count 1 -test.timeout 60m) |
    tee -a "$out" | awk '/^Benchmark/ { print $3 }'
}

# rounds NAME BIN BASE LOUPE BENCHTIME UNIT SCALE: alternates BASE and LOUPE
# COUNT times and prints the medians and the median ratio.
rounds() {
  local name=$1 bin=$2 base=$3 loupe=$4 bt=$5 unit=$6 scale=$7 i b l
  local bs=() ls=() rs=()
  for ((i = 1; i <= count; i++)); do
    if ((i % 2)); then
      b=$(bench "$bin" "$base" "$bt"); l=$(bench "$bin" "$loupe" "$bt")
    else
      l=$(bench "$bin" "$loupe" "$bt"); b=$(bench "$bin" "$base" "$bt")
    fi
    bs+=("$b"); ls+=("$l"); rs+=("$(awk -v b="$b" -v l="$l" 'BEGIN { printf "%.4f", l / b }')")
    printf '  round %d: baseline %s ns/op, loupe %s ns/op\n' "$i" "$b" "$l"
  done
  median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
  printf '%s\n' "$name: loupe $(awk -v x="$(median "${ls[@]}")" -v s="$scale" 'BEGIN { printf "%.3f", x / s }') $unit vs baseline $(awk -v x="$(median "${bs[@]}")" -v s="$scale" 'BEGIN { printf "%.3f", x / s }') $unit, median ratio $(median "${rs[@]}"), median added $(awk -v l="$(median "${ls[@]}")" -v b="$(median "${bs[@]}")" -v s="$scale" 'BEGIN { printf "%.3f", (l - b) / s }') $unit" | tee -a .cache/bench/summary.txt
}

: > .cache/bench/summary.txt
echo "== guard + execution overhead (trivial query; target: added <= 2 ms)"
rounds "guarded query" query.test '^BenchmarkRawTrivial$' '^BenchmarkGuardedTrivial$' 2000x ms 1e6
echo "== CSV load, $rows rows (target: ratio <= 1.15 against DuckDB's CREATE TABLE AS read_csv)"
rounds "load CSV" load.test '^BenchmarkLoadCSV$/^duckdb_ctas$' '^BenchmarkLoadCSV$/^loupe$' 1x s 1e9
echo "== wide CSV: 10,000 columns × 20 rows against 10 × 20,000 (same cells), and against DuckDB's read_csv of the same file"
rounds "load wide CSV vs narrow" load.test '^BenchmarkLoadWide$/^narrow$' '^BenchmarkLoadWide$/^wide$' 1x s 1e9
rounds "load wide CSV vs DuckDB" load.test '^BenchmarkLoadWide$/^wide_duckdb_ctas$' '^BenchmarkLoadWide$/^wide$' 1x s 1e9
echo "== a query (two columns, every row) on the wide dataset against the narrow one: what a query pays for the width (the wide layout's view)"
rounds "query wide vs narrow" load.test '^BenchmarkQueryWide$/^narrow$' '^BenchmarkQueryWide$/^wide$' 5x ms 1e6
echo "== many small files: 100 and 1,000 CSVs of 200 rows (targets: per-file ratio <= 1.3, 1,000 vs 10 x 100 <= 1.1, workspace < 3x its CSVs)"
bash scripts/bench-many.sh | tee -a .cache/bench/summary.txt
echo "== agent overhead per step, zero-latency fake model, SQL time excluded (target <= 2 ms); prompt size for 20 tables"
go test ./app/assemble -run '^$' -bench 'AgentStep|PromptSize' -benchtime 30x -count 1 | tee -a "$out" |
  awk '/^Benchmark/ { name = $1; sub(/-[0-9]+$/, "", name); printf "%s: %s %s\n", name, $5, $6 }' | tee -a .cache/bench/summary.txt
echo "== retrieval: index over 10k tables (build <= 60 s, search p95 <= 20 ms), recall@10 and MRR of the prompt's tables on defog (>= 0.98) and on spider-union's unseen schemas (>= 0.95), no embedding model; prompt over 10k tables <= 4,000 tokens"
go test ./data/index ./app/retrieve -run '^$' -bench 'Index10k|RetrievalDefog|RetrievalSpider|PromptTokens10k' -benchtime 1x -count 1 | tee -a "$out" |
  awk '/^Benchmark/ { n = $1; sub(/-[0-9]+$/, "", n); l = n ":"; for (i = 5; i < NF; i += 2) l = l " " $i " " $(i + 1); print l }' | tee -a .cache/bench/summary.txt
echo "== prompt cache: share of each request that is a verbatim prefix of the one before, within a run and for a follow-up (goal >= 0.9 both)"
go test ./app/assemble -run '^$' -bench 'PromptPrefix' -benchtime 1x -count 1 | tee -a "$out" |
  awk '/^Benchmark/ { n = $1; sub(/-[0-9]+$/, "", n); l = n ":"; for (i = 3; i < NF; i += 2) if ($(i + 1) ~ /prefix/) l = l " " $(i + 1) " " $i; print l }' | tee -a .cache/bench/summary.txt
echo "== what an answer costs: the eval sample, scripted zero-latency model on the Ollama wire; prompt tokens per answer (tools included, ~4 characters a token) and how many begin with the request before (a prompt cache's), completion tokens, steps, Loupe's own time"
go test ./app/eval -run '^$' -bench 'AnswerCost' -benchtime 1x -count 1 | tee -a "$out" |
  awk '/^Benchmark/ { n = $1; sub(/-[0-9]+$/, "", n); l = n ":"; for (i = 3; i < NF; i += 2) if ($(i + 1) ~ /answer/) l = l " " $(i + 1) " " $i; print l }' | tee -a .cache/bench/summary.txt
echo "== conversations (targets: 1,000 messages open in <= 100 ms; 1,000 conversations list in <= 50 ms)"
go test ./data/store ./app -run '^$' -bench 'OpenConversation1000|ListConversations1000|GetChat1000' -benchtime 20x -count 1 | tee -a "$out" |
  awk '/^Benchmark/ { name = $1; sub(/-[0-9]+$/, "", name); printf "%s: %.1f ms\n", name, $3 / 1e6 }' | tee -a .cache/bench/summary.txt
echo "== Python sandbox (targets: warm run <= 400 ms, first run with container start <= 3 s, pandas + reading 1 M rows <= 3 s)"
# The tests' private Docker daemon with the cached image (built on first use, minutes).
go test ./tools/python/sandbox ./tools/python -run '^$' -bench 'ColdRun|WarmRun$|MillionRows' -benchtime 5x -count 1 -timeout 30m | tee -a "$out" |
  awk '/^Benchmark/ { name = $1; sub(/-[0-9]+$/, "", name); printf "%s: %.0f ms\n", name, $3 / 1e6 }' | tee -a .cache/bench/summary.txt
bash scripts/sandbox-image.sh stop >/dev/null 2>&1 || true
echo "== remote schema at scale (targets: 5,000-table PostgreSQL schema discovered <= 30 s, prompt <= 4,000 tokens)"
bash scripts/dbservers.sh start pg >/dev/null
bash scripts/bench-remote.sh | tee -a .cache/bench/summary.txt
bash scripts/dbservers.sh stop pg >/dev/null 2>&1 || true
echo "== window against an empty Wails window (targets: cold start <= 1.5 s, idle memory <= 200 MB RSS)"
BENCH_COUNT=${BENCH_COUNT:-5} bash scripts/window-bench.sh | tail -n 2 | tee -a .cache/bench/summary.txt
echo "== 10,000-point chart render in the UI (Chromium, web mode; target <= 500 ms), 3 runs"
(cd frontend && LOUPE_E2E_BIN="$PWD/../build/bin/loupe" npx playwright test e2e/perf.spec.ts --repeat-each 3 --reporter=list 2>&1) |
  grep -E '^chart:' | tee -a .cache/bench/summary.txt || echo "chart: the render benchmark failed (cd frontend && npx playwright test e2e/perf.spec.ts)" >&2
echo
echo "== summary"
cat .cache/bench/summary.txt
