#!/bin/sh
# install.sh — installs Loupe from this unpacked tarball, with the same
# desktop integration as the .deb: the binary, a menu entry with the icon,
# and "Open with Loupe" for CSV, TSV, JSON, Parquet, xlsx, DuckDB and SQLite.
#
#   ./install.sh               for you alone, into ~/.local (no root needed)
#   sudo ./install.sh --system for everyone, into /usr/local
#   ./install.sh --uninstall   (with --system as well if installed so)
#
# Uninstalling removes only what this script installed; your workspace
# (~/.local/share/loupe/workspace) and settings (~/.config/loupe) stay.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

prefix=$HOME/.local
uninstall=no
for arg in "$@"; do
  case $arg in
    --system) prefix=/usr/local ;;
    --prefix=*) prefix=${arg#--prefix=} ;;
    --uninstall) uninstall=yes ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done

files="bin/loupe share/applications/loupe.desktop share/mime/packages/loupe.xml"
for size in 48 128 256 512; do files="$files share/icons/hicolor/${size}x${size}/apps/loupe.png"; done

refresh() {
  command -v update-mime-database >/dev/null && update-mime-database "$prefix/share/mime" >/dev/null 2>&1 || true
  command -v update-desktop-database >/dev/null && update-desktop-database "$prefix/share/applications" >/dev/null 2>&1 || true
  command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$prefix/share/icons/hicolor" >/dev/null 2>&1 || true
}

if [ "$uninstall" = yes ]; then
  for f in $files; do rm -f "$prefix/$f"; done
  refresh
  echo "Loupe removed from $prefix. Your workspace and settings were left in place."
  exit 0
fi

for f in $files; do
  mkdir -p "$(dirname "$prefix/$f")"
  cp "$here/$f" "$prefix/$f"
done
chmod 0755 "$prefix/bin/loupe"
# The menu entry names the installed binary by its full path: ~/.local/bin
# is not on every desktop session's PATH.
sed "s|^Exec=loupe |Exec=$prefix/bin/loupe |; s|^TryExec=loupe\$|TryExec=$prefix/bin/loupe|" \
  "$here/share/applications/loupe.desktop" >"$prefix/share/applications/loupe.desktop"
refresh

echo "Loupe $(cat "$here/VERSION") installed in $prefix."
# The window needs WebKitGTK and GTK 3 from the distribution.
missing=$(ldd "$prefix/bin/loupe" 2>/dev/null | sed -n 's/^[[:space:]]*\([^ ]*\) => not found$/\1/p')
if [ -n "$missing" ]; then
  echo "The window needs libraries this system lacks: $(echo $missing)"
  echo "  Debian/Ubuntu: sudo apt-get install libwebkit2gtk-4.0-37 (or libwebkit2gtk-4.1-0, per the name above) libgtk-3-0"
  echo "  Fedora:        sudo dnf install webkit2gtk4.0 (or webkit2gtk4.1) gtk3"
  echo "  Arch:          sudo pacman -S webkit2gtk (or webkit2gtk-4.1) gtk3"
  exit 1
fi
echo "Start it from the applications menu, or: $prefix/bin/loupe [FILE...]"
