#!/usr/bin/env bash
# Window benchmark: cold start and idle memory of the Loupe window against
# an empty Wails window with the same options (scripts/windowbase), both
# measured here, alternating, on a private Xvfb display.
#
#   cold start  process start to the page's DOM ready (the "window ready"
#               line both programs log; target <= 1.5 s)
#   idle memory RSS of the program 5 s after DOM ready, and of its WebKit
#               processes (target <= 200 MB RSS)
#
# Loupe starts on a fresh workspace and settings folder each round. Before
# each start the program's binary is dropped from the page cache, so that it
# is read from disk as after an install or a reboot: a binary the linker has
# just written sits in the cache in large folios that the kernel maps whole,
# which adds some 25 MB of resident code pages that a start from disk does
# not have. Shared libraries stay cached, as on a desktop where other GTK
# apps run. Prints the medians, the differences to the baseline and one
# summary line.
#   BENCH_COUNT  rounds (default 5)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
count=${BENCH_COUNT:-5}
binary="$root/build/bin/loupe"
base="$root/.cache/bench/windowbase"
[[ -x $binary ]] || { echo "window-bench: $binary not found: run make build" >&2; exit 1; }
mkdir -p .cache/bench
tags=$(cat .cache/wails-tags 2>/dev/null || true)
go build -tags "desktop,production${tags:+,$tags}" -trimpath -ldflags "-s -w" -o "$base" ./scripts/windowbase

scratch=$(mktemp -d) pid="" xvfb_pid=""
cleanup() {
  [[ -n $pid ]] && kill -9 "$pid" 2>/dev/null
  [[ -n $xvfb_pid ]] && kill "$xvfb_pid" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$scratch/display" 2>/dev/null &
xvfb_pid=$!
for _ in $(seq 100); do [[ -s $scratch/display ]] && break; sleep 0.1; done
[[ -s $scratch/display ]] || { echo "window-bench: Xvfb did not start" >&2; exit 1; }
export DISPLAY=":$(head -n1 "$scratch/display")"

mb() { awk -v k="$2" '$1 == k":" { print int($2 / 1024) }' "/proc/$1/status"; }

# uncache FILE: write FILE back and drop it from the page cache.
uncache() {
  sync "$1"
  dd if="$1" iflag=nocache count=0 status=none
}

# measure BIN: one start of BIN; prints "cold_ms app_mb anon_mb webkit_mb".
measure() {
  local log="$scratch/log" ready="" t0 webkit=0 c g
  rm -rf "$scratch/ws" "$scratch/cfg"
  uncache "$1"
  t0=$(date +%s%3N)
  LOUPE_WORKSPACE="$scratch/ws" LOUPE_CONFIG_DIR="$scratch/cfg" GTK_THEME=Adwaita "$1" >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 600); do
    ready=$(grep -m1 -o 'window ready.*unix_ms=[0-9]*' "$log" | sed 's/.*unix_ms=//' || true)
    [[ -n $ready ]] && break
    kill -0 "$pid" 2>/dev/null || { echo "window-bench: $1 exited: $(tail -n 5 "$log")" >&2; exit 1; }
    sleep 0.1
  done
  [[ -n $ready ]] || { echo "window-bench: $1 never logged 'window ready'" >&2; exit 1; }
  sleep 5
  for c in $(pgrep -P "$pid" || true); do
    webkit=$((webkit + $(mb "$c" VmRSS)))
    for g in $(pgrep -P "$c" || true); do webkit=$((webkit + $(mb "$g" VmRSS))); done
  done
  echo "$((ready - t0)) $(mb "$pid" VmRSS) $(mb "$pid" RssAnon) $webkit"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=""
}

: >"$scratch/base" && : >"$scratch/loupe"
for i in $(seq "$count"); do
  measure "$base" >>"$scratch/base"
  measure "$binary" >>"$scratch/loupe"
  printf 'round %d: baseline %s | loupe %s\n' "$i" "$(tail -n1 "$scratch/base")" "$(tail -n1 "$scratch/loupe")"
done

# median FILE COLUMN
median() { awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for f in base loupe; do
  for col in 1 2 3 4; do eval "${f}_$col=$(median "$scratch/$f" "$col")"; done
done
# shellcheck disable=SC2154 # set by the eval above
{
  printf 'window cold start: loupe %d ms vs empty Wails window %d ms (+%d ms); target <= 1500 ms\n' "$loupe_1" "$base_1" $((loupe_1 - base_1))
  printf 'window idle RSS: loupe %d MB (anonymous %d MB) vs empty Wails window %d MB (anonymous %d MB), +%d MB; WebKit processes %d MB vs %d MB; target <= 200 MB\n' \
    "$loupe_2" "$loupe_3" "$base_2" "$base_3" $((loupe_2 - base_2)) "$loupe_4" "$base_4"
} | tee .cache/bench/window.txt
