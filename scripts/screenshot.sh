#!/usr/bin/env bash
# Window smoke test: builds Loupe (unless --no-build), opens its window on a
# private Xvfb display with a fresh workspace and settings folder, and
# checks that a new user can use it:
#
#   .cache/shots/window.png         first start, light theme (welcome screen)
#   .cache/shots/window-loaded.png  after Ctrl+O, the native GTK open dialog and
#                                   a CSV file: the dataset in the sidebar
#   .cache/shots/window-answer.png  then a question asked with Ctrl+K and Enter,
#                                   answered by the scripted fake model: steps,
#                                   chart and findings drawn by WebKitGTK
#   .cache/shots/window-chart-10k.png a follow-up drawing 10,000 points; the
#                                   page's render time (ChartView's measure,
#                                   logged by the app) is printed and kept in
#                                   window-chart.txt
#   .cache/shots/window-containment.png a malicious model's answer (images,
#                                   links, a chart spec with URLs, all aimed
#                                   at a logging listener on loopback): fails
#                                   if the window made any request to it
#   .cache/shots/window-dark.png    GTK dark theme (the page follows it through
#                                   prefers-color-scheme)
#   .cache/shots/window-metrics.txt cold start (process start to the page's
#                                   DOM ready, from the app's "window ready"
#                                   log line) and idle memory (RSS of the app
#                                   and of its WebKit processes, 5 s after
#                                   the page painted; the binary is read
#                                   from disk, as scripts/window-bench.sh
#                                   does)
#
# Fails when the app exits early, the window never appears, the window stays
# a flat colour (a blank webview), the file chosen in the dialog never loads
# (checked afterwards with `loupe sql` on the same workspace), the question
# is not answered, the app does not exit cleanly on SIGTERM, or Ctrl+C with
# the open dialog showing does not end it. Needs xvfb, xdotool and imagemagick
# (scripts/deps.sh installs them). The app's output is kept beside the shots.
#
# Environment: LOUPE_SMOKE_TIMEOUT seconds to wait for each window (default 90).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
shots="$root/.cache/shots"
binary="$root/build/bin/loupe"
timeout=${LOUPE_SMOKE_TIMEOUT:-90}

die() { printf 'screenshot: %s\n' "$*" >&2; exit 1; }

build=true
for arg in "$@"; do
  case $arg in
    --no-build) build=false ;;
    *) die "unknown argument $arg (usage: scripts/screenshot.sh [--no-build])" ;;
  esac
done

for tool in Xvfb xdotool import identify; do
  command -v "$tool" >/dev/null || die "$tool not found: run make deps"
done

if $build; then
  make --no-print-directory build
fi
[[ -x $binary ]] || die "$binary not found: run make build"
mkdir -p "$shots"

app_pid="" xvfb_pid=""
stop() { # PID: ends a process this script started and reaps it (SIGKILL after 10 s)
  [[ -n $1 ]] || return 0
  kill "$1" 2>/dev/null || true
  for _ in $(seq 100); do
    kill -0 "$1" 2>/dev/null || break
    sleep 0.1
  done
  kill -9 "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
scratch=$(mktemp -d) # each start's workspace and settings folder
trap 'stop "$app_pid"; stop "$xvfb_pid"; rm -rf "$scratch"' EXIT
fixture="$root/frontend/e2e/fixtures/service_requests.csv"

# A private display: Xvfb picks a free number and writes it to fd 3.
displayfile=$(mktemp)
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$displayfile" 2>"$shots/xvfb.log" &
xvfb_pid=$!
for _ in $(seq 100); do
  [[ -s $displayfile ]] && break
  sleep 0.1
done
[[ -s $displayfile ]] || die "Xvfb did not start: $(tail -n 5 "$shots/xvfb.log")"
export DISPLAY=":$(head -n1 "$displayfile")"
rm -f "$displayfile"

# start NAME [ENV=VALUE...]: starts the app on an empty workspace and
# settings folder of its own with the given environment, waits for its
# window and a painted page. Sets pid, wid, log, png, ws and t0 (the start,
# in Unix milliseconds).
start() {
  local colours=0 begin name=$1
  shift
  retries=${retries:-0}
  log="$shots/$name.log" png="$shots/$name.png" wid=""
  ws="$scratch/$name/workspace"
  mkdir -p "$ws" "$scratch/$name/config" "$scratch/$name/data"
  rm -f "$png"
  t0=$(date +%s%3N)
  env LOUPE_WORKSPACE="$ws" LOUPE_CONFIG_DIR="$scratch/$name/config" XDG_DATA_HOME="$scratch/$name/data" "$@" "$binary" >"$log" 2>&1 &
  pid=$! app_pid=$!
  begin=$SECONDS

  while [[ -z $wid ]]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      # A busy Xvfb now and then refuses a new client: try the start again
      # (twice at most) rather than fail the suite on the display server.
      if grep -q 'failed to init GTK' "$log" && ((retries++ < 2)); then
        printf 'screenshot: GTK could not open display %s; starting again\n' "$DISPLAY"
        wait "$pid" 2>/dev/null || true
        start "$name" "$@"
        return
      fi
      die "loupe exited before its window appeared; log $log:
$(tail -n 20 "$log")"
    fi
    ((SECONDS - begin < timeout)) || die "no window named Loupe after ${timeout}s; log $log:
$(tail -n 20 "$log")"
    wid=$(xdotool search --onlyvisible --name '^Loupe$' 2>/dev/null | head -n1 || true)
    [[ -n $wid ]] || sleep 0.1
  done

  # The window maps before the webview paints: wait until it shows more than a
  # handful of colours (text, borders) instead of its flat background.
  while :; do
    sleep 0.5
    kill -0 "$pid" 2>/dev/null || die "loupe exited after its window appeared; log $log:
$(tail -n 20 "$log")"
    import -window "$wid" "$png" 2>>"$log" || true
    colours=$(identify -format '%k' "$png" 2>/dev/null || echo 0)
    ((colours > 64)) && break
    ((SECONDS - begin < timeout)) || die "window $wid stayed blank ($colours colours) for ${timeout}s; see $png and $log"
  done
}

# snap: one more beat so fonts and late layout settle, then the final shot.
snap() {
  sleep 1
  import -window "$wid" "$png"
  printf 'screenshot: %s (window %s, %s colours)\n' "$png" "$wid" "$(identify -format '%k' "$png")"
}

# finish: Wails closes the window on SIGTERM and exits 0; anything else (a
# crash in GTK while quitting, a hang) is a bug worth failing for.
finish() {
  local status=0
  kill "$pid"
  wait "$pid" || status=$?
  app_pid=""
  ((status == 0)) || die "loupe exited with status $status on SIGTERM; log $log:
$(tail -n 20 "$log")"
}

# rss PID: resident memory in MB of PID and of every process below it.
rss() {
  local kb=0 p
  for p in $1 $(pgrep -P "$1" || true); do
    kb=$((kb + $(awk '/^VmRSS:/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)))
  done
  echo $((kb / 1024))
}

# metrics: cold start from the app's "window ready" line (logged when the
# page's DOM is ready) and memory after 5 idle seconds.
metrics() {
  local ready
  ready=$(grep -m1 -o 'window ready.*unix_ms=[0-9]*' "$log" | sed 's/.*unix_ms=//' || true)
  [[ -n $ready ]] || die "no 'window ready' line in $log"
  sleep 5
  local app webkit=0 p
  app=$(awk '/^VmRSS:/ {print int($2 / 1024)}' "/proc/$pid/status")
  for p in $(pgrep -P "$pid" || true); do webkit=$((webkit + $(rss "$p"))); done
  {
    printf 'cold start to window ready: %d ms\n' $((ready - t0))
    printf 'idle RSS: loupe %d MB (anonymous %d MB), WebKit processes %d MB, total %d MB\n' \
      "$app" "$(awk '/^RssAnon:/ {print int($2 / 1024)}' "/proc/$pid/status")" "$webkit" $((app + webkit))
  } | tee "$shots/window-metrics.txt"
}

# open_dialog: Ctrl+O in the window; waits for the native GTK open dialog
# and sets dialog to its window id.
open_dialog() {
  local begin=$SECONDS
  dialog=""
  xdotool windowfocus --sync "$wid" 2>>"$log" || true
  # A click on the sidebar's empty part gives the page the keyboard.
  xdotool mousemove --window "$wid" 130 500 click 1 2>>"$log"
  xdotool key ctrl+o 2>>"$log"
  while [[ -z $dialog ]]; do
    ((SECONDS - begin < timeout)) || die "Ctrl+O opened no dialog named 'Open data files' in ${timeout}s; log $log"
    sleep 0.2
    dialog=$(xdotool search --onlyvisible --name '^Open data files$' 2>/dev/null | head -n1 || true)
  done
}

# open_file FILE: the open dialog, then FILE typed into its location bar;
# waits until the app has loaded it.
open_file() {
  local begin=$SECONDS
  open_dialog
  # GTK takes keys once the dialog has settled: type slowly, check, confirm.
  sleep 0.5
  xdotool windowfocus --sync "$dialog" 2>>"$log" || true
  xdotool key ctrl+l 2>>"$log"
  sleep 0.3
  xdotool type --delay 20 "$1" 2>>"$log"
  sleep 0.3
  import -window "$dialog" "$shots/open-dialog.png" 2>>"$log" || true
  xdotool key Return 2>>"$log"
  until grep -q "INFO loaded subsystem=load file=$1 " "$log"; do
    grep -q "subsystem=load.*level=ERROR\|ERROR.*subsystem=load" "$log" && die "loading $1 failed; log $log"
    ((SECONDS - begin < timeout)) || die "$1 did not load within ${timeout}s of Ctrl+O; log $log"
    sleep 0.2
  done
}

# ask QUESTION: Ctrl+K, the question typed, Enter; waits until the run
# has finished and fails unless it answered.
ask() {
  local begin=$SECONDS line before
  before=$(grep -c 'INFO run finished' "$log" || true)
  xdotool windowfocus --sync "$wid" 2>>"$log" || true
  xdotool mousemove --window "$wid" 130 500 click 1 2>>"$log"
  xdotool key ctrl+k 2>>"$log"
  sleep 0.3
  xdotool type --delay 10 "$1" 2>>"$log"
  xdotool key Return 2>>"$log"
  until (($(grep -c 'INFO run finished' "$log" || true) > before)); do
    ((SECONDS - begin < timeout)) || die "no answer to '$1' within ${timeout}s; log $log"
    sleep 0.2
  done
  line=$(grep 'INFO run finished' "$log" | tail -n 1)
  [[ $line == *status=done* ]] || die "the run did not answer: $line"
  printf 'answered in the window: %s\n' "${line#*INFO }"
  sleep 1 # the last batch of events reaches the page
}

# chart_rendered ROWS: waits for the app's log line of the page's render of
# a ROWS-row chart and prints its time (WebKitGTK here, not Chromium).
chart_rendered() {
  local begin=$SECONDS line
  until line=$(grep -m1 "INFO chart rendered .*rows=$1 " "$log"); do
    ((SECONDS - begin < timeout)) || die "the window never logged drawing a $1-row chart; log $log"
    sleep 0.2
  done
  printf 'chart in the window (WebKitGTK): %s points rendered in %s ms with %s (target <= 500 ms)\n' \
    "$1" "$(sed 's/.* ms=\([0-9]*\).*/\1/' <<<"$line")" "$(sed 's/.* renderer=\([a-z]*\).*/\1/' <<<"$line")" |
    tee "$shots/window-chart.txt"
}

retries=0
# The metrics are of a start from disk, as after an install or a reboot
# (scripts/window-bench.sh says why): a binary the linker has just written
# sits in the page cache in large folios, which adds some 25 MB of RSS.
sync "$binary"
dd if="$binary" iflag=nocache count=0 status=none
start window GTK_THEME=Adwaita
snap
metrics
finish

# The scripted fake model (agent/llm/fake/fakemodel) on a free port, with
# a script that fits the fixture (scripts/testdata): the window asks it as it would
# ask Ollama.
go build -o "$scratch/fakemodel" ./agent/llm/fake/fakemodel
"$scratch/fakemodel" -addr 127.0.0.1:0 -script "$root/scripts/testdata/smoke-agencies.json" >"$shots/fakemodel.log" 2>&1 &
model_pid=$!
trap 'stop "$app_pid"; stop "$model_pid"; stop "$xvfb_pid"; rm -rf "$scratch"' EXIT
for _ in $(seq 100); do
  model_url=$(grep -o 'ollama=http://[0-9.:]*' "$shots/fakemodel.log" | sed 's/^ollama=//' || true)
  [[ -n $model_url ]] && break
  sleep 0.1
done
[[ -n $model_url ]] || die "the fake model did not start: $(cat "$shots/fakemodel.log")"

retries=0
start window-loaded GTK_THEME=Adwaita LOUPE_PROVIDER=ollama LOUPE_BASE_URL="$model_url" LOUPE_MODEL=demo
open_file "$fixture"
snap
ask "Which agency gets the most requests?"
png="$shots/window-answer.png"
snap
ask "Plot all ten thousand readings"
chart_rendered 10000
png="$shots/window-chart-10k.png"
snap
finish
# The table is really in the workspace the window used.
rows=$("$binary" sql --workspace "$ws" --json 'SELECT count(*) AS n FROM service_requests')
[[ $rows == *'"rows":[[1000]]'* ]] || die "service_requests is not in the window's workspace after the load: $rows"
printf 'loaded through the open dialog: service_requests, 1000 rows\n'

# Containment (issue 16): a malicious model's answer in the real window.
# Its images, links and chart spec all point at a logging listener on
# loopback; after the answer is drawn the listener must have seen only
# this script's own probe.
node -e "const s=require('http').createServer((q,r)=>{console.log(q.method+' '+q.url);r.end('{}')});
s.listen(0,'127.0.0.1',()=>console.log('listening http://127.0.0.1:'+s.address().port))" >"$shots/listener.log" 2>&1 &
listener_pid=$!
trap 'stop "$app_pid"; stop "$model_pid"; stop "${evil_pid:-}"; stop "$listener_pid"; stop "$xvfb_pid"; rm -rf "$scratch"' EXIT
for _ in $(seq 100); do
  listener=$(grep -o 'http://127.0.0.1:[0-9]*' "$shots/listener.log" || true)
  [[ -n $listener ]] && break
  sleep 0.1
done
[[ -n $listener ]] || die "the listener did not start: $(cat "$shots/listener.log")"
exec 5<>"/dev/tcp/127.0.0.1/${listener##*:}" && printf 'GET /probe HTTP/1.0\r\n\r\n' >&5 && cat <&5 >/dev/null && exec 5>&-
sed "s|LISTENER|$listener|g" "$root/scripts/testdata/smoke-containment.json" >"$scratch/containment.json"
"$scratch/fakemodel" -addr 127.0.0.1:0 -script "$scratch/containment.json" >"$shots/fakemodel-containment.log" 2>&1 &
evil_pid=$!
for _ in $(seq 100); do
  evil_url=$(grep -o 'ollama=http://[0-9.:]*' "$shots/fakemodel-containment.log" | sed 's/^ollama=//' || true)
  [[ -n $evil_url ]] && break
  sleep 0.1
done
[[ -n $evil_url ]] || die "the second fake model did not start: $(cat "$shots/fakemodel-containment.log")"
retries=0
start window-containment GTK_THEME=Adwaita LOUPE_PROVIDER=ollama LOUPE_BASE_URL="$evil_url" LOUPE_MODEL=demo
open_file "$fixture"
ask "Which agency gets the most requests?"
snap
finish
hits=$(grep -v '^listening ' "$shots/listener.log" || true)
[[ $hits == 'GET /probe' ]] || die "the window made requests a model asked for (want only this script's probe):
$hits"
printf 'containment: the window drew a malicious answer and made no request to %s\n' "$listener"
stop "$evil_pid"
stop "$listener_pid"

kill -0 "$xvfb_pid" || die "Xvfb died: $(tail -n 5 "$shots/xvfb.log")"
retries=0
start window-dark GTK_THEME=Adwaita:dark
snap
finish

# Ctrl+C in the terminal while the open dialog shows: Wails' quit waits for
# the dialog, so the app closes its workspace and exits by itself (status
# 130, within its 5 s grace) instead of hanging until the dialog closes.
retries=0
start window-interrupt GTK_THEME=Adwaita
open_dialog
kill -INT "$pid"
begin=$SECONDS status=0
while kill -0 "$pid" 2>/dev/null; do
  ((SECONDS - begin < 15)) || die "Ctrl+C with the open dialog showing did not end the app within 15 s; log $log"
  sleep 0.2
done
wait "$pid" || status=$?
app_pid=""
((status == 130)) && grep -q 'closing the workspace and exiting' "$log" ||
  die "Ctrl+C with the open dialog showing: status $status, want 130 and the app's exit line; log $log"
printf 'Ctrl+C with the open dialog showing: exited in %d s (status 130)\n' $((SECONDS - begin))
