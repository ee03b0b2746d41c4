#!/usr/bin/env bash
# Loupe's offline sandbox recipe: a Debian root filesystem with Python and
# the analysis packages, made by debootstrap from this machine's own apt
# mirror (no Docker Hub, no PyPI), written as a tar stream on stdout for
# `docker import`. For air-gapped machines and CI. Needs root (debootstrap
# and chroot) and a Debian or Ubuntu host.
#
# Environment (all optional):
#   LOUPE_MIRROR    apt mirror URL (default: the host's first deb mirror)
#   LOUPE_SUITE     release (default: the host's VERSION_CODENAME)
#   LOUPE_PACKAGES  comma-separated packages to include
#   LOUPE_WORK      scratch folder for the root filesystem (default: mktemp)
#
# Progress goes to stderr as lines "STEP i/n what", debootstrap's own
# "I: …" lines, then "VERSIONS name=version …" and "SIZE bytes" (the
# size of the tar about to follow on stdout, approximately).
set -euo pipefail

step() { echo "STEP $1/6 $2" >&2; }
die() { echo "ERROR $*" >&2; exit 1; }

[[ $(id -u) == 0 ]] || die "the offline recipe needs root (debootstrap and chroot): run it with sudo"
command -v debootstrap >/dev/null || die "debootstrap is not installed: apt-get install debootstrap"

mirror=${LOUPE_MIRROR:-}
if [[ -z $mirror && -f /etc/apt/sources.list.d/debian.sources ]]; then
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
fi
if [[ -z $mirror && -f /etc/apt/sources.list.d/ubuntu.sources ]]; then
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/ubuntu.sources)
fi
if [[ -z $mirror && -f /etc/apt/sources.list ]]; then
  mirror=$(awk '$1 == "deb" {for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) {print $i; exit}}' /etc/apt/sources.list)
fi
[[ -n $mirror ]] || die "no apt mirror found in /etc/apt: set LOUPE_MIRROR"
suite=${LOUPE_SUITE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-}")}
[[ -n $suite ]] || die "unknown release: set LOUPE_SUITE (e.g. bookworm)"
packages=${LOUPE_PACKAGES:-python3,python3-pandas,python3-numpy,python3-matplotlib,python3-scipy,python3-seaborn,python3-openpyxl}

work=${LOUPE_WORK:-}
if [[ -z $work ]]; then
  work=$(mktemp -d "${TMPDIR:-/var/tmp}/loupe-rootfs.XXXXXX")
fi
root=$work/rootfs
cleanup() { rm -rf --one-file-system "$work"; }
trap cleanup EXIT

step 1 "debootstrap $suite from $mirror"
debootstrap --variant=minbase --include="$packages" "$suite" "$root" "$mirror" >&2 ||
  die "debootstrap failed (see the lines above); check the mirror $mirror"

step 2 "add the sandbox user (uid 1000)"
chroot "$root" useradd -u 1000 -U -M -d /tmp -s /usr/sbin/nologin sandbox

step 3 "build matplotlib's font cache"
mkdir -p "$root/opt/loupe/mpl"
chroot "$root" env MPLCONFIGDIR=/opt/loupe/mpl MPLBACKEND=Agg HOME=/tmp python3 -c 'import matplotlib.pyplot' >&2
chmod -R a+rX "$root/opt/loupe"

step 4 "record package versions"
versions=$(chroot "$root" python3 - <<'PY'
import importlib
out = []
for name in ("pandas", "numpy", "matplotlib", "seaborn", "scipy", "openpyxl", "pyarrow"):
    try:
        out.append(name + "=" + importlib.import_module(name).__version__)
    except Exception:
        pass
import platform
out.insert(0, "python=" + platform.python_version())
print(" ".join(out))
PY
)
echo "VERSIONS $versions" >&2

step 5 "trim headers, compilers, docs, locales and apt caches"
rm -rf "$root"/usr/include "$root"/usr/lib/gcc "$root"/usr/share/doc "$root"/usr/share/man \
  "$root"/usr/share/info "$root"/usr/share/locale "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/* \
  "$root"/var/log/* "$root"/usr/share/lintian
for pkg in numpy pandas scipy matplotlib seaborn openpyxl; do
  d=$root/usr/lib/python3/dist-packages/$pkg
  if [[ -d $d ]]; then find "$d" -depth -type d -name tests -exec rm -rf {} +; fi
done

step 6 "write the image"
echo "SIZE $(du -sb --one-file-system "$root" | cut -f1)" >&2
tar --numeric-owner --one-file-system -C "$root" -c .
