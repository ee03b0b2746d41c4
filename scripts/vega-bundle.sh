#!/usr/bin/env bash
# Rebuilds (or, with --check, verifies) the Vega bundles vendored in
# agent/report/vega/js/. The report stage runs them in an embedded JS engine
# (goja) to draw charts as SVG without a browser, and inlines them in the
# exported report.html so that it needs no network.
#
# The files are the packages' own prebuilt UMD bundles, taken unchanged from
# the npm tarballs of the pinned versions below; goja parses them as they are
# (only structuredClone and a few timer/console functions are polyfilled, in
# Go). npm tarballs of a published version never change, so the result is
# byte-for-byte reproducible; SHA256SUMS records it.
#
#   scripts/vega-bundle.sh          fetch the pinned versions, write js/
#   scripts/vega-bundle.sh --check  fetch again and compare with js/SHA256SUMS
#
# To move to new versions: change the pins, run without --check, run
# `go test ./agent/report/...`, and commit js/ with the new SHA256SUMS.
set -euo pipefail

VEGA=6.4.0
VEGA_LITE=6.5.0 # declares node >= 22 but its build runs anywhere; pinned exactly
VEGA_EMBED=7.3.0

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out="$root/agent/report/vega/js"
check=false
[[ ${1:-} == --check ]] && check=true

command -v npm >/dev/null || { echo "vega-bundle: npm is needed" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --silent "vega@$VEGA" "vega-lite@$VEGA_LITE" "vega-embed@$VEGA_EMBED" >/dev/null)

stage="$work/js"
mkdir -p "$stage"
unpack() { # NAME VERSION BUNDLE
  mkdir -p "$work/$1"
  tar -xzf "$work/$1-$2.tgz" -C "$work/$1"
  cp "$work/$1/package/build/$3" "$stage/$3"
  cp "$work/$1/package/LICENSE" "$stage/LICENSE-$1"
}
unpack vega "$VEGA" vega.min.js
unpack vega-lite "$VEGA_LITE" vega-lite.min.js
unpack vega-embed "$VEGA_EMBED" vega-embed.min.js

cat >"$stage/VERSIONS" <<EOF
vega $VEGA
vega-lite $VEGA_LITE
vega-embed $VEGA_EMBED
EOF

# The bundles are inlined in <script> elements: they must not close one.
if grep -l -e '</script' -e '<!--' "$stage"/*.js; then
  echo "vega-bundle: a bundle contains </script or <!-- and cannot be inlined as is" >&2
  exit 1
fi

(cd "$stage" && sha256sum vega.min.js vega-lite.min.js vega-embed.min.js VERSIONS >SHA256SUMS)

if $check; then
  (cd "$out" && sha256sum -c --quiet "$stage/SHA256SUMS") ||
    { echo "vega-bundle: agent/report/vega/js differs from the pinned packages" >&2; exit 1; }
  diff -q "$stage/SHA256SUMS" "$out/SHA256SUMS" >/dev/null ||
    { echo "vega-bundle: js/SHA256SUMS is stale" >&2; exit 1; }
  echo "vega-bundle: js/ matches vega $VEGA, vega-lite $VEGA_LITE, vega-embed $VEGA_EMBED"
  exit 0
fi

mkdir -p "$out"
cp "$stage"/* "$out"/
echo "vega-bundle: wrote $(ls "$stage" | wc -l) files to agent/report/vega/js"
