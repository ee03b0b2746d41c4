#!/usr/bin/env bash
# A private Docker daemon for the Python sandbox's tests, started so that it
# leaves the machine's own Docker alone: its own data root, exec root and socket,
# no iptables and no bridge (the sandbox uses --network none, and without
# these flags dockerd rewrites the host's firewall). Idempotent: a daemon
# already answering on the socket is reused. The data root is kept between
# runs, so the sandbox image the tests build (tools/python/sandbox's
# offline recipe, about 6 minutes the first time) is cached there.
#
#   scripts/sandbox-image.sh start    start (or reuse); prints KEY=VALUE lines
#   scripts/sandbox-image.sh stop     stop the daemon (the image stays cached)
#   scripts/sandbox-image.sh env      print KEY=VALUE lines only
#
# The folder is $LOUPE_DOCKER_DIR (default /tmp/loupe-docker-$UID). dockerd
# and debootstrap are installed with apt-get when missing (root only).
set -euo pipefail
cd "$(dirname "$0")/.."

W=${LOUPE_DOCKER_DIR:-/tmp/loupe-docker-$(id -u)}
SOCK=$W/docker.sock

log() { echo "sandbox-image: $*" >&2; }
die() { log "$*"; exit 1; }

running() { [[ -S $SOCK ]] && curl -sf --max-time 2 --unix-socket "$SOCK" http://docker/_ping >/dev/null 2>&1; }

install() {
  if command -v dockerd >/dev/null && command -v debootstrap >/dev/null; then return; fi
  [[ $(id -u) == 0 ]] || die "dockerd or debootstrap missing: apt-get install docker.io debootstrap"
  log "installing docker.io and debootstrap (about 30 s)"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -q --no-install-recommends \
    docker.io debootstrap >"$W/apt.log" 2>&1 || die "apt-get failed: see $W/apt.log"
}

start() {
  install
  if running; then return; fi
  [[ $(id -u) == 0 ]] || die "starting dockerd needs root; or point DOCKER_HOST at a running daemon"
  rm -f "$SOCK" "$W/docker.pid"
  log "starting dockerd on unix://$SOCK"
  # setsid: the daemon outlives this script and the test that started it;
  # 9>&-: it must not inherit the lock below.
  setsid dockerd --data-root "$W/data" --exec-root "$W/exec" --pidfile "$W/docker.pid" \
    -H "unix://$SOCK" --iptables=false --ip6tables=false --bridge=none \
    </dev/null >"$W/dockerd.log" 2>&1 9>&- &
  local i
  for i in $(seq 1 150); do
    running && return
    sleep 0.2
  done
  die "dockerd did not answer within 30 s: see $W/dockerd.log"
}

stop() {
  [[ -f $W/docker.pid ]] || return 0
  local pid
  pid=$(cat "$W/docker.pid")
  if kill -0 "$pid" 2>/dev/null; then
    log "stopping dockerd ($pid)"
    kill "$pid"
    local i
    for i in $(seq 1 150); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -0 "$pid" 2>/dev/null && die "dockerd ($pid) did not stop: see $W/dockerd.log"
  fi
  rm -f "$W/docker.pid"
}

print_env() {
  cat <<EOF
LOUPE_DOCKER_DIR=$W
DOCKER_HOST=unix://$SOCK
EOF
}

cmd=${1:-start}
mkdir -p "$W"
# One caller at a time: test binaries of several packages start it at once.
exec 9>"$W/.lock"
flock 9
case $cmd in
start) start; print_env ;;
stop) stop ;;
env) print_env ;;
*) die "usage: $0 start|stop|env" ;;
esac
