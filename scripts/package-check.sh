#!/usr/bin/env bash
# package-check.sh — installs the .deb `make package` made on this machine,
# uses the installed app as a user would, and removes it again:
#
#   1. lintian reports no error;
#   2. apt-get install ./dist/loupe_*.deb; /usr/bin/loupe --version is the
#      version the package was built from; the MIME database knows Parquet
#      and DuckDB, and loupe.desktop handles CSV,
#      TSV, JSON, Parquet, xlsx, DuckDB and SQLite;
#   3. the window from /usr/bin under Xvfb: a first start on an empty
#      workspace, then with a CSV as its argument (what "Open with Loupe"
#      runs) and a second launch with another CSV, which hands it to the
#      running window; a screenshot of each, and after it closes both CSVs
#      are tables in the workspace;
#   4. loupe doctor says what to install next, loupe load a CSV, loupe sql a
#      query (and a DROP refused with exit 3);
#   5. apt-get remove, then dpkg --purge: none of the package's files is left, the
#      desktop database no longer names Loupe, and the user's workspace is
#      still there with its tables.
#
# Needs root (apt-get). Everything the app writes goes to a scratch HOME.
# The screenshots are saved in .cache/shots/package-first-start.png and
# package-window.png.
#
# Usage: scripts/package-check.sh [DEB]   (default the newest dist/loupe_*.deb)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

die() { echo "package-check: FAIL: $*" >&2; exit 1; }
step() { printf '\n== %s\n' "$*"; }
passed=0
ok() { printf '   ok: %s\n' "$*"; passed=$((passed + 1)); }

deb=${1:-$(ls -t dist/loupe_*.deb 2>/dev/null | head -n1)}
[[ -n $deb && -f $deb ]] || die "no dist/loupe_*.deb; run make package first"
deb=$(realpath "$deb")
[[ $(id -u) == 0 ]] || die "needs root, for apt-get install"
if dpkg-query -W -f='${Status}' loupe 2>/dev/null | grep -q 'install ok installed'; then
  die "loupe is already installed on this machine; remove it first (apt-get purge loupe)"
fi
for tool in lintian Xvfb xdotool import identify dbus-daemon; do
  command -v "$tool" >/dev/null || die "$tool missing: apt-get install lintian xvfb xdotool imagemagick"
done
apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 -y -q "$@"; }

scratch=$(mktemp -d)
shots=$root/.cache/shots
mkdir -p "$shots"
app_pid="" xvfb_pid=""
cleanup() {
  [[ -n $app_pid ]] && kill "$app_pid" 2>/dev/null || true
  [[ -n $xvfb_pid ]] && kill "$xvfb_pid" 2>/dev/null || true
  [[ -s $scratch/bus.pid ]] && kill "$(cat "$scratch/bus.pid")" 2>/dev/null || true
  # Never leave the package installed behind a failed check.
  if dpkg-query -W -f='${Status}' loupe 2>/dev/null | grep -q 'installed'; then
    apt_get purge loupe >/dev/null 2>&1 || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT

# The installed app runs as a new user would: its own HOME, nothing set.
export HOME=$scratch/home XDG_DATA_HOME="" XDG_CONFIG_HOME="" LOUPE_WORKSPACE="" LOUPE_CONFIG_DIR=""
unset XDG_DATA_HOME XDG_CONFIG_HOME LOUPE_WORKSPACE LOUPE_CONFIG_DIR
mkdir -p "$HOME"
workspace=$HOME/.local/share/loupe/workspace
data=$scratch/data
mkdir -p "$data"
cp data/load/testdata/csv-edge-cases/iris.csv "$data/flowers.csv"
cp data/load/testdata/csv-edge-cases/iris.csv "$data/opened_by_window.csv"
cp data/load/testdata/csv-edge-cases/iris.csv "$data/second_launch.csv"

step "lintian"
lintian --fail-on error "$deb" 2>&1 | grep -v '^running with root' || true
lintian --fail-on error "$deb" >/dev/null 2>&1 || die "lintian reports errors"
ok "lintian: no errors"

step "apt-get install $deb"
apt_get install "$deb" >"$scratch/install.log" 2>&1 || die "apt-get install failed: $(tail -n 20 "$scratch/install.log")"
dpkg -L loupe | while read -r f; do if [[ -f $f ]]; then echo "$f"; fi; done >"$scratch/files"
[[ $(command -v loupe) == /usr/bin/loupe ]] || die "loupe is not /usr/bin/loupe but $(command -v loupe)"
want=$(dpkg-deb -f "$deb" Version)
got=$(loupe --version)
echo "   $got (package $want)"
[[ $got == "loupe "* && $got != "loupe dev" ]] || die "loupe --version printed $got"
ok "installed $(wc -l <"$scratch/files") files; /usr/bin/loupe --version: $got"

# update-mime-database (dpkg's trigger) compiles loupe.xml into the database.
for t in application/vnd.apache.parquet application/x-duckdb; do
  [[ -f /usr/share/mime/$t.xml ]] || die "the MIME database has no $t after install"
done
for t in text/csv text/tab-separated-values application/json application/vnd.apache.parquet \
  application/vnd.openxmlformats-officedocument.spreadsheetml.sheet application/x-duckdb application/vnd.sqlite3; do
  grep -q "^$t=.*loupe.desktop" /usr/share/applications/mimeinfo.cache || die "the desktop database does not give $t to loupe.desktop"
done
ok "MIME: Parquet and DuckDB types in the database; loupe.desktop handles CSV, TSV, JSON, Parquet, xlsx, DuckDB, SQLite"

step "the window from /usr/bin/loupe with a CSV argument, under Xvfb"
displayfile=$scratch/display
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$displayfile" 2>"$scratch/xvfb.log" &
xvfb_pid=$!
for _ in $(seq 100); do [[ -s $displayfile ]] && break; sleep 0.1; done
[[ -s $displayfile ]] || die "Xvfb did not start"
export DISPLAY=":$(head -n1 "$displayfile")"
# window NAME [ARG...]: starts /usr/bin/loupe ARG... in $data, waits for
# its page, settles SETTLE seconds, saves $shots/NAME.png, closes it.
window() {
  local name=$1 wid="" colours
  shift
  log=$shots/$name.log png=$shots/$name.png
  (cd "$data" && exec /usr/bin/loupe "$@") >"$log" 2>&1 &
  app_pid=$!
  for _ in $(seq 600); do
    kill -0 "$app_pid" 2>/dev/null || die "the window exited: $(tail -n 20 "$log")"
    wid=$(xdotool search --onlyvisible --name '^Loupe$' 2>/dev/null | head -n1 || true)
    [[ -n $wid ]] && grep -q 'window ready' "$log" && break
    sleep 0.2
  done
  [[ -n $wid ]] || die "no window named Loupe after 120 s: $(tail -n 20 "$log")"
  if [[ -n ${SECOND:-} ]]; then
    # A second launch on the same workspace hands its file over and exits.
    (cd "$data" && timeout 60 /usr/bin/loupe "$SECOND") >"$shots/$name-second.log" 2>&1 || true
    kill -0 "$app_pid" 2>/dev/null || die "the first window exited after the second launch"
  fi
  sleep "${SETTLE:-8}"
  import -window "$wid" "$png"
  colours=$(identify -format '%k' "$png")
  ((colours > 64)) || die "the window is blank ($colours colours): $png"
  kill -TERM "$app_pid"
  for _ in $(seq 100); do kill -0 "$app_pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$app_pid" 2>/dev/null && die "the window did not close on SIGTERM"
  wait "$app_pid" 2>/dev/null || true
  app_pid=""
}
# First start: a new user's empty workspace, no model server, no Docker.
window package-first-start
ok "first start: window up; screenshot $png"
# "Open with Loupe": the file is the argument; then a second double-click,
# which Wails' single-instance lock hands to this window over the session
# bus (a private one here).
dbus-daemon --session --fork --address="unix:path=$scratch/bus" --print-pid=3 3>"$scratch/bus.pid" ||
  die "could not start a D-Bus session bus (apt-get install dbus)"
export DBUS_SESSION_BUS_ADDRESS="unix:path=$scratch/bus"
SECOND=second_launch.csv window package-window opened_by_window.csv
kill "$(cat "$scratch/bus.pid")" 2>/dev/null || true
unset DBUS_SESSION_BUS_ADDRESS
[[ $(grep -c 'opening files given at launch' "$log") == 2 ]] ||
  die "the window did not open both the argument and the second launch's file: $(tail -n 20 "$log")"
ok "window with a CSV argument, and a second launch's CSV handed to it; screenshot $png"
n=$(loupe sql --json "SELECT (SELECT count(*) FROM opened_by_window) + (SELECT count(*) FROM second_launch) AS n" 2>&1 | sed -n 's/.*"rows":\[\[\([0-9]*\)\]\].*/\1/p')
[[ $n == 300 ]] || die "the CSVs passed to the window are not tables in the workspace (rows: ${n:-none}); log $log"
ok "the window loaded both: tables opened_by_window and second_launch, 150 rows each"

step "loupe doctor, load, sql"
set +e
loupe doctor >"$scratch/doctor.out" 2>&1
set -e
sed 's/^/   | /' "$scratch/doctor.out"
grep -q 'model server' "$scratch/doctor.out" && grep -q 'fix:\|✓ model server' "$scratch/doctor.out" ||
  die "loupe doctor did not report the model server with what to do"
ok "doctor reports the model server and what to do"
loupe load "$data/flowers.csv" >"$scratch/load.out" || die "loupe load failed"
grep -q '"table":"flowers".*"rows":150' "$scratch/load.out" || die "loupe load: $(cat "$scratch/load.out")"
[[ -d $workspace ]] || die "no workspace at $workspace"
ok "loupe load flowers.csv: 150 rows, workspace $workspace"
n=$(loupe sql --json "SELECT count(*) AS n FROM flowers WHERE species = 'Iris-setosa'" | sed -n 's/.*"rows":\[\[\([0-9]*\)\]\].*/\1/p')
[[ $n == 50 ]] || die "loupe sql counted $n setosa rows, want 50"
ok "loupe sql: 50 setosa rows"
set +e
loupe sql "DROP TABLE flowers" >/dev/null 2>&1
code=$?
set -e
[[ $code == 3 ]] || die "DROP TABLE exited $code, want 3 (refused)"
ok "DROP TABLE refused, exit 3"

step "apt-get remove, then purge"
apt_get remove loupe >"$scratch/remove.log" 2>&1 || die "apt-get remove failed: $(tail -n 20 "$scratch/remove.log")"
left=$(while read -r f; do if [[ -e $f ]]; then echo "$f"; fi; done <"$scratch/files")
[[ -z $left ]] || die "apt-get remove left: $left"
# With no conffiles, remove already forgot the package, and apt-get purge
# would not find it ("Unable to locate package"); dpkg --purge clears any
# leftover state (none expected) and accepts an unknown name.
dpkg --purge loupe >"$scratch/purge.log" 2>&1 || die "dpkg --purge failed: $(cat "$scratch/purge.log")"
dpkg-query -W -f='${Status}' loupe 2>/dev/null | grep -q 'installed' && die "loupe still known to dpkg after purge"
grep -q 'loupe.desktop' /usr/share/applications/mimeinfo.cache 2>/dev/null && die "mimeinfo.cache still names loupe.desktop"
[[ ! -e /usr/share/mime/application/vnd.apache.parquet.xml ]] || die "the Parquet MIME type outlived the package"
ok "remove and purge: none of the $(wc -l <"$scratch/files") files left, the desktop and MIME databases forget Loupe"
[[ -d $workspace ]] || die "the workspace was removed with the package"
ls "$workspace" | grep -q . || die "the workspace is empty after removal"
ok "the user's workspace is still there: $(ls "$workspace" | tr '\n' ' ')"

printf '\npackage-check: %d passed, 0 failed\n' "$passed"
