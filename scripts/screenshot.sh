#!/usr/bin/env bash
# Window smoke test: builds Loupe (unless --no-build), opens its window on a
# private Xvfb display, waits for the "Loupe" window to map and its page to
# paint, and saves screenshots:
#
#   .cache/shots/window.png        light theme
#   .cache/shots/window-dark.png   GTK dark theme (the page follows it through
#                                  prefers-color-scheme)
#
# Fails when the app exits early, the window never appears, the window stays
# a flat colour (a blank webview), or the app does not exit cleanly on SIGTERM. Needs xvfb, xdotool and imagemagick
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
stop() { # PID: ends a process this script started and reaps it
  [[ -n $1 ]] || return 0
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
trap 'stop "$app_pid"; stop "$xvfb_pid"' EXIT

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

# shoot NAME [ENV=VALUE...]: starts the app with the given environment, waits
# for its window and a painted page, saves $shots/NAME.png, stops the app.
shoot() {
  local log="$shots/$1.log" png="$shots/$1.png" wid="" colours=0 start pid
  shift
  rm -f "$png"
  env "$@" "$binary" >"$log" 2>&1 &
  pid=$! app_pid=$!
  start=$SECONDS

  while [[ -z $wid ]]; do
    kill -0 "$pid" 2>/dev/null || die "loupe exited before its window appeared; log $log:
$(tail -n 20 "$log")"
    ((SECONDS - start < timeout)) || die "no window named Loupe after ${timeout}s; log $log:
$(tail -n 20 "$log")"
    wid=$(xdotool search --onlyvisible --name '^Loupe$' 2>/dev/null | head -n1 || true)
    [[ -n $wid ]] || sleep 0.5
  done

  # The window maps before the webview paints: wait until it shows more than a
  # handful of colours (text, borders) instead of its flat background.
  while :; do
    sleep 1
    kill -0 "$pid" 2>/dev/null || die "loupe exited after its window appeared; log $log:
$(tail -n 20 "$log")"
    import -window "$wid" "$png" 2>>"$log" || true
    colours=$(identify -format '%k' "$png" 2>/dev/null || echo 0)
    ((colours > 64)) && break
    ((SECONDS - start < timeout)) || die "window $wid stayed blank ($colours colours) for ${timeout}s; see $png and $log"
  done
  # One more beat so fonts and late layout settle, then the final shot.
  sleep 1
  import -window "$wid" "$png"
  printf 'screenshot: %s (window %s, %s colours, %ss)\n' "$png" "$wid" "$colours" "$((SECONDS - start))"

  # Wails closes the window on SIGTERM and exits 0; anything else (a crash in
  # GTK while quitting, a hang) is a bug worth failing for.
  local status=0
  kill "$pid"
  wait "$pid" || status=$?
  app_pid=""
  ((status == 0)) || die "loupe exited with status $status on SIGTERM; log $log:
$(tail -n 20 "$log")"
}

shoot window GTK_THEME=Adwaita
shoot window-dark GTK_THEME=Adwaita:dark
