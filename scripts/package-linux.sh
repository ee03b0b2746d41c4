#!/usr/bin/env bash
# package-linux.sh — the Linux packages of the binary `make build` made, in dist/:
#
#   dist/loupe_VERSION_amd64.deb              for Debian and Ubuntu (apt-get install ./…deb)
#   dist/loupe-VERSION-linux-amd64.tar.gz     any other distribution: unpack, ./install.sh
#
# Both install the same things: the binary, a .desktop entry with the icon,
# and the MIME types Loupe opens (CSV, TSV, JSON, JSON lines, Parquet, xlsx,
# DuckDB, SQLite), so "Open with Loupe" and double-click work.
#
# Not an AppImage: Debian packages no appimagetool or linuxdeploy, and this
# project downloads no tool from outside its package registries. The tarball's
# install script does the same desktop integration instead.
#
# Usage: scripts/package-linux.sh [BINARY]   (default build/bin/loupe)
# VERSION (default `git describe`) must be the version the binary was linked with.
# DEB_COMPRESSION=xz makes a smaller .deb, slowly (default gzip).
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${1:-build/bin/loupe}
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
arch=$(dpkg --print-architecture)
# gzip by default: xz makes the .deb 28 MB instead of 39 but takes minutes
# on a busy 2-core machine; releases set DEB_COMPRESSION=xz.
compress=${DEB_COMPRESSION:-gzip}
[[ -x $bin ]] || { echo "package-linux: $bin not found; run make build first" >&2; exit 1; }
for tool in dpkg-deb dpkg-shlibdeps convert; do
  command -v "$tool" >/dev/null || { echo "package-linux: $tool missing: apt-get install dpkg-dev imagemagick" >&2; exit 1; }
done

# debian_version turns a git description into a Debian version: v1.2.3 →
# 1.2.3, v1.2.3-4-gabc → 1.2.3+4.gabc; an untagged commit abc1234 →
# 0.0~git<count>.abc1234 (sorts before any release, and later commits after earlier ones).
debian_version() {
  local v=$1
  if [[ $v =~ ^v?[0-9]+\.[0-9] ]]; then
    v=${v#v}
    echo "${v//-/+}" | sed 's/+/./2g'
  else
    echo "0.0~git$(git rev-list --count HEAD 2>/dev/null || echo 0).${v//-/.}"
  fi
}
debver=$(debian_version "$version")

mkdir -p dist
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# stage ROOT PREFIX: the installed tree under ROOT, with files in PREFIX (/usr).
stage() {
  local root=$1 prefix=$2
  install -D -m 0755 "$bin" "$root$prefix/bin/loupe"
  strip --strip-unneeded "$root$prefix/bin/loupe"
  install -D -m 0644 build/linux/loupe.desktop "$root$prefix/share/applications/loupe.desktop"
  install -D -m 0644 build/linux/loupe-mime.xml "$root$prefix/share/mime/packages/loupe.xml"
  local size
  for size in 48 128 256 512; do
    mkdir -p "$root$prefix/share/icons/hicolor/${size}x${size}/apps"
    convert build/appicon.png -resize "${size}x${size}" -strip "$root$prefix/share/icons/hicolor/${size}x${size}/apps/loupe.png"
  done
}

# --- .deb -------------------------------------------------------------------
deb=$work/deb
stage "$deb" /usr
install -D -m 0644 build/linux/copyright "$deb/usr/share/doc/loupe/copyright"
printf 'loupe (%s) unstable; urgency=medium\n\n  * Built from %s.\n\n -- Loupe <dev@loupe.app>  %s\n' \
  "$debver" "$version" "$(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")" |
  gzip -9n >"$work/changelog.gz"
install -m 0644 "$work/changelog.gz" "$deb/usr/share/doc/loupe/changelog.gz"
mkdir -p "$deb/usr/share/man/man1"
sed "s/@VERSION@/$version/" build/linux/loupe.1 | gzip -9n >"$deb/usr/share/man/man1/loupe.1.gz"
chmod 0644 "$deb/usr/share/man/man1/loupe.1.gz"

# The runtime libraries the binary links against (WebKitGTK 4.0 or 4.1,
# whichever it was built with; GTK 3; libc), as dpkg-shlibdeps reads them.
mkdir -p "$work/src/debian"
printf 'Source: loupe\n\nPackage: loupe\nArchitecture: any\n' >"$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O -e"$deb/usr/bin/loupe" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[[ $depends == *webkit2gtk* ]] || { echo "package-linux: no WebKitGTK among the dependencies ($depends)" >&2; exit 1; }

mkdir -p "$deb/DEBIAN"
cat >"$deb/DEBIAN/control" <<EOF
Package: loupe
Version: $debver
Architecture: $arch
Maintainer: Loupe <dev@loupe.app>
Installed-Size: $(du -sk --exclude=DEBIAN "$deb" | cut -f1)
Depends: $depends, shared-mime-info, desktop-file-utils
Suggests: docker.io
Section: misc
Priority: optional
Homepage: https://github.com/loupeapp/loupe
Description: ask your data questions, locally
 Loupe is a desktop app that loads CSV, TSV, JSON, Parquet, Excel, DuckDB
 and SQLite files (or connects to PostgreSQL, MySQL and SQLite databases)
 and lets an AI model you choose explore them with read-only SQL. Models
 run locally through Ollama, or on a hosted service you set up.
 .
 Docker (docker.io) is needed only for the optional Python sandbox.
EOF
dpkg-deb --root-owner-group -Z"$compress" --build "$deb" "dist/loupe_${debver}_${arch}.deb" >/dev/null
echo "package-linux: dist/loupe_${debver}_${arch}.deb"

# --- tarball with an install script -----------------------------------------
name=loupe-$version-linux-$arch
tree=$work/$name
stage "$tree" ""
install -m 0755 build/linux/install.sh "$tree/install.sh"
install -m 0644 build/linux/copyright "$tree/COPYRIGHT"
echo "$version" >"$tree/VERSION"
tar -C "$work" --owner=0 --group=0 --numeric-owner --sort=name -czf "dist/$name.tar.gz" "$name"
echo "package-linux: dist/$name.tar.gz"
