#!/usr/bin/env bash
# package-windows-check.sh — what can be checked of the Windows installer on
# Linux, under Debian's Wine (wine64 8.0), in a scratch Wine prefix:
#
#   1. the NSIS installer installs silently (/S) into Program Files (its
#      WebView2 step runs the bootstrapper, which fails offline), with the
#      icon the file associations name, and registers .csv for Loupe;
#   2. the installed loupe.exe: --version, load a CSV, sql a query, a DROP
#      refused with exit 3;
#   3. the uninstaller removes the program and leaves the workspace.
#
# NOT checked: the window (WebView2 does not run under Wine), the WebView2
# runtime's installation (its bootstrapper needs the internet), Explorer's
# double-click. Go 1.26 programs need bcryptprimitives.dll (ProcessPrng),
# which Wine 8.0 lacks: the check builds a stand-in with mingw-w64 for the
# scratch prefix only (it calls RtlGenRandom); it is never shipped.
#
# Usage: scripts/package-windows-check.sh [INSTALLER]  (default the newest in dist/)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

die() { echo "package-windows-check: FAIL: $*" >&2; exit 1; }
passed=0
ok() { printf '   ok: %s\n' "$*"; passed=$((passed + 1)); }

installer=${1:-$(ls -t dist/loupe-*-windows-amd64-installer.exe 2>/dev/null | head -n1)}
[[ -n $installer && -f $installer ]] || die "no dist/loupe-*-windows-amd64-installer.exe; run make package first"
wine=/usr/lib/wine/wine64
[[ -x $wine ]] || die "no Wine: apt-get install wine64"
command -v x86_64-w64-mingw32-gcc >/dev/null || die "no mingw-w64: apt-get install gcc-mingw-w64-x86-64"

scratch=$(mktemp -d)
export WINEPREFIX=$scratch/prefix WINEDEBUG=-all WINEDLLOVERRIDES="bcryptprimitives=n;mscoree=;mshtml="
cleanup() {
  WINEPREFIX=$scratch/prefix /usr/lib/wine/wineserver -k 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT

"$wine" wineboot -i >/dev/null 2>&1 || die "wineboot failed"
# A new prefix says Windows 7; the installer requires 10 or later.
"$wine" winecfg -v win10 >/dev/null 2>&1 || die "winecfg -v win10 failed"
cat >"$scratch/bcp.c" <<'EOF'
#include <windows.h>
#include <ntsecapi.h>
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (!RtlGenRandom(data, n)) return FALSE;
    data += n; len -= n;
  }
  return TRUE;
}
EOF
printf 'LIBRARY bcryptprimitives\nEXPORTS\nProcessPrng\n' >"$scratch/bcp.def"
x86_64-w64-mingw32-gcc -shared -O2 -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
  "$scratch/bcp.c" "$scratch/bcp.def" -ladvapi32

echo "== install $installer (silent)"
cp "$installer" "$scratch/setup.exe"
(cd "$scratch" && timeout 300 "$wine" setup.exe /S >/dev/null 2>&1) || true
dir="$WINEPREFIX/drive_c/Program Files/Loupe/Loupe" # company\product, from wails.json
# Wine returns before the installer has finished writing: wait for it.
for _ in $(seq 600); do [[ -f $dir/uninstall.exe ]] && break; sleep 0.2; done
[[ -f $dir/loupe.exe ]] || die "the installer put no loupe.exe in Program Files ($(ls "$WINEPREFIX/drive_c/Program Files"))"
[[ -f $dir/appicon.ico ]] || die "the file types' icon is not installed"
ok "installed: $(ls "$dir" | tr '\n' ' ')"
reg=$("$wine" reg query 'HKCU\Software\Classes\.csv' /ve 2>/dev/null || true)
reg+=$("$wine" reg query 'HKLM\Software\Classes\.csv' /ve 2>/dev/null || true)
grep -q 'Loupe.csv' <<<"$reg" || die ".csv is not registered for Loupe: $reg"
ok ".csv registered as Loupe.csv"

exe() { (cd "$scratch" && "$wine" "$dir/loupe.exe" "$@"); }
v=$(exe --version 2>/dev/null | tr -d '\r')
[[ $v == "loupe "* && $v != "loupe dev" ]] || die "loupe.exe --version printed '$v'"
ok "loupe.exe --version: $v"
cp data/load/testdata/csv-edge-cases/iris.csv "$scratch/flowers.csv"
exe load --workspace 'C:\ws' flowers.csv >"$scratch/load.out" 2>&1 || die "load failed: $(cat "$scratch/load.out")"
grep -q '"table":"flowers".*"rows":150' "$scratch/load.out" || die "load: $(cat "$scratch/load.out")"
ok "loupe.exe load flowers.csv: 150 rows"
n=$(exe sql --workspace 'C:\ws' --json "SELECT count(*) FROM flowers WHERE species = 'Iris-virginica'" 2>/dev/null |
  sed -n 's/.*"rows":\[\[\([0-9]*\)\]\].*/\1/p')
[[ $n == 50 ]] || die "sql counted '$n' virginica rows, want 50"
ok "loupe.exe sql: 50 virginica rows"
set +e
exe sql --workspace 'C:\ws' "DROP TABLE flowers" >/dev/null 2>&1
code=$?
set -e
[[ $code == 3 ]] || die "DROP TABLE exited $code, want 3"
ok "DROP TABLE refused, exit 3"

echo "== uninstall"
(cd "$scratch" && timeout 300 "$wine" "$dir/uninstall.exe" /S >/dev/null 2>&1) || true
for _ in $(seq 50); do [[ -e $dir/loupe.exe ]] || break; sleep 0.2; done
[[ ! -e $dir/loupe.exe ]] || die "the uninstaller left loupe.exe"
[[ -d $WINEPREFIX/drive_c/ws ]] || die "the uninstaller removed the workspace"
ok "uninstalled; the workspace C:\\ws is still there"

printf '\npackage-windows-check: %d passed, 0 failed\n' "$passed"
