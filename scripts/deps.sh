#!/usr/bin/env bash
# Installs what building, running and testing Loupe's desktop app needs on a
# Debian or Ubuntu machine, as root or through sudo:
#
#   - C toolchain, GTK 3 and WebKit2GTK headers (cgo build of the window)
#   - Xvfb, ImageMagick and xdotool (window smoke test and screenshots)
#   - Node.js and npm, only when `node` is missing
#   - the Wails CLI, pinned, into $(go env GOBIN) or $(go env GOPATH)/bin
#   - the frontend's node_modules, from package-lock.json
#
# Idempotent: each step checks first and is skipped when already satisfied, so
# a second run takes seconds. State lives in .cache/ (ignored by git):
#
#   .cache/wails-tags       Go build tags the window needs ("webkit2_41" where
#                           only WebKit2GTK 4.1 exists, else empty)
#   .cache/npm-ci.stamp     hash of package-lock.json + node version of the
#                           last successful `npm ci`
#
# Go itself must already be installed (the project's go.mod names the version).
set -euo pipefail

WAILS_VERSION=v2.12.0
NODE_MIN=20.19.0 # Vite 7 refuses older Node

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache="$root/.cache"
mkdir -p "$cache"
# The folder ignores itself, so no top-level .gitignore entry is needed.
[[ -f "$cache/.gitignore" ]] || printf '*\n' >"$cache/.gitignore"

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'deps: %s\n' "$*" >&2; exit 1; }

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || die "run as root, or install sudo"
  SUDO=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive

# --- apt -------------------------------------------------------------------

installed() { # PKG: true when dpkg has PKG fully installed
  [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) == "install ok installed" ]]
}

has_candidate() { # PKG: true when apt knows a version of PKG it could install
  local c
  c=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2}')
  [[ -n $c && $c != "(none)" ]]
}

apt_updated=false
apt_update() { # runs `apt-get update` at most once per run
  $apt_updated && return 0
  log "apt-get update"
  apt_updated=true
  "${SUDO[@]}" apt-get -o DPkg::Lock::Timeout=1200 update -q >>"$cache/apt.log" 2>&1 ||
    die "apt-get update failed; last lines of .cache/apt.log:
$(tail -n 20 "$cache/apt.log")"
}

apt_install() { # PKG...: installs those not yet installed
  local missing=() p
  for p in "$@"; do installed "$p" || missing+=("$p"); done
  ((${#missing[@]})) || return 0
  for p in "${missing[@]}"; do has_candidate "$p" || { apt_update; break; }; done
  log "apt-get install ${missing[*]} (output in .cache/apt.log)"
  apt_get install "${missing[@]}" && return 0
  # Stale package lists give 404s for superseded versions: refresh once, retry.
  if ! $apt_updated; then
    apt_update
    apt_get install "${missing[@]}" && return 0
  fi
  die "apt-get install ${missing[*]} failed; last lines of .cache/apt.log:
$(tail -n 20 "$cache/apt.log")"
}

apt_get() { # ARGS...: apt-get ARGS, non-interactive, output into .cache/apt.log
  "${SUDO[@]}" apt-get -o DPkg::Lock::Timeout=1200 -y -q --no-install-recommends "$@" >>"$cache/apt.log" 2>&1
}

command -v apt-get >/dev/null || die "apt-get not found: this script supports Debian and Ubuntu"

# WebKit2GTK: Wails v2 targets the 4.0 API; where a distribution only ships 4.1
# (Ubuntu 24.04+, Debian trixie+), build with -tags webkit2_41.
webkit_tags=""
if installed libwebkit2gtk-4.0-dev; then
  webkit=libwebkit2gtk-4.0-dev
elif installed libwebkit2gtk-4.1-dev; then
  webkit=libwebkit2gtk-4.1-dev webkit_tags=webkit2_41
else
  has_candidate libwebkit2gtk-4.0-dev || apt_update
  if has_candidate libwebkit2gtk-4.0-dev; then
    webkit=libwebkit2gtk-4.0-dev
  else
    webkit=libwebkit2gtk-4.1-dev webkit_tags=webkit2_41
  fi
fi

packages=(
  build-essential pkg-config libgtk-3-dev "$webkit"
  xvfb imagemagick xdotool fonts-noto-color-emoji sqlite3
)
command -v node >/dev/null || packages+=(nodejs npm)
# The tests also need database servers (remote sources), Docker and
# debootstrap (the Python sandbox) and Chromium (end-to-end).
if [[ ${1:-} == --test ]]; then
  packages+=(mariadb-server mariadb-client openssl poppler-utils) # poppler-utils: report PDFs read back (pdftotext, pdftoppm)
  command -v dockerd >/dev/null || packages+=(docker.io) # not over an installed Docker CE
  command -v debootstrap >/dev/null || packages+=(debootstrap)
  command -v chromium >/dev/null || packages+=(chromium)
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || packages+=(postgresql)
fi
apt_install "${packages[@]}"
printf '%s\n' "$webkit_tags" >"$cache/wails-tags"

# --- Node ------------------------------------------------------------------

node_version=$(node --version | sed 's/^v//')
if [[ $(printf '%s\n%s\n' "$NODE_MIN" "$node_version" | sort -V | head -n1) != "$NODE_MIN" ]]; then
  die "node $node_version is too old: the frontend's Vite needs $NODE_MIN or newer"
fi

# --- Wails CLI -------------------------------------------------------------

command -v go >/dev/null || die "go not found: install the Go version go.mod names"
gobin=$(go env GOBIN)
[[ -n $gobin ]] || gobin="$(go env GOPATH | cut -d: -f1)/bin"
wails="$gobin/wails" # where `go install` puts it; the Makefile looks there too
if [[ ! -x $wails ]] || [[ $("$wails" version 2>/dev/null | head -n1) != "$WAILS_VERSION" ]]; then
  log "go install wails@$WAILS_VERSION"
  go install "github.com/wailsapp/wails/v2/cmd/wails@$WAILS_VERSION"
fi

# --- frontend node_modules -------------------------------------------------

frontend="$root/frontend"
want=$( { sha256sum "$frontend/package-lock.json" | cut -d' ' -f1; node --version; } | sha256sum | cut -d' ' -f1)
have=$(cat "$cache/npm-ci.stamp" 2>/dev/null || true)
if [[ $want != "$have" || ! -d $frontend/node_modules ]]; then
  log "npm ci (frontend)"
  rm -f "$cache/npm-ci.stamp"
  npm --prefix "$frontend" ci --no-audit --no-fund --loglevel=error
  printf '%s\n' "$want" >"$cache/npm-ci.stamp"
fi
# `wails build` re-runs its install command whenever this checksum of
# package.json is missing or differs; node_modules is current, so record it.
printf '%s' "$(md5sum "$frontend/package.json" | cut -d' ' -f1)" >"$frontend/package.json.md5"

log "deps ok (wails tags: ${webkit_tags:-none})"
