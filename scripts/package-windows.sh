#!/usr/bin/env bash
# package-windows.sh — loupe.exe cross-built from Linux with mingw-w64, and
# its NSIS installer (Wails -nsis: installs the WebView2 runtime when it is
# missing, registers the file types wails.json lists), in dist/:
#
#   dist/loupe-VERSION-windows-amd64.exe            the program alone
#   dist/loupe-VERSION-windows-amd64-installer.exe  the installer
#
# DuckDB's Windows binding (github.com/duckdb/duckdb-go-bindings/lib/windows-amd64,
# pinned in go.mod) is a static library built with a UCRT MinGW; Debian's
# mingw-w64 (POSIX-threads variant) is the msvcrt flavour. Two things bridge
# them: -lucrt last on the link line, for the few UCRT-only C functions the
# library calls (__stdio_common_vsnprintf_s, _timezone…), and
# mingw_windows.go, for one C++ symbol (see there).
#
# Installs mingw-w64 and nsis with apt-get when they are missing and this is
# root; otherwise says what to install and exits 0 without the Windows files
# (the Linux packages do not depend on them). SKIP_WINDOWS=1 skips it.
#
# Not signed: Windows SmartScreen warns on first start ("unknown publisher").
set -euo pipefail
cd "$(dirname "$0")/.."

version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
[[ -z ${SKIP_WINDOWS:-} ]] || { echo "package-windows: skipped (SKIP_WINDOWS)"; exit 0; }

cc=x86_64-w64-mingw32-gcc-posix cxx=x86_64-w64-mingw32-g++-posix
if ! command -v "$cxx" >/dev/null || ! command -v makensis >/dev/null; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -q --no-install-recommends \
      gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix nsis >/dev/null
  else
    echo "package-windows: needs mingw-w64 and nsis (apt-get install g++-mingw-w64-x86-64-posix nsis); no Windows installer made"
    exit 0
  fi
fi

gobin=$(go env GOBIN)
wails=${gobin:-$(go env GOPATH | cut -d: -f1)/bin}/wails
[[ -x $wails ]] || { echo "package-windows: no Wails CLI at $wails; run make deps" >&2; exit 1; }

mkdir -p dist
# The frontend was built by `make build`; -s skips building it again.
# Windows has no WebKitGTK tags.
CGO_ENABLED=1 CC=$cc CXX=$cxx "$wails" build -platform windows/amd64 -nsis -s -m -nosyncgomod -trimpath \
  -o loupe.exe -ldflags "-X github.com/loupeapp/loupe/app/buildinfo.version=$version -extldflags -lucrt" -nocolour
cp build/bin/loupe.exe "dist/loupe-$version-windows-amd64.exe"
installer=$(ls -t build/bin/*installer*.exe | head -n1)
cp "$installer" "dist/loupe-$version-windows-amd64-installer.exe"
echo "package-windows: dist/loupe-$version-windows-amd64.exe"
echo "package-windows: dist/loupe-$version-windows-amd64-installer.exe"
