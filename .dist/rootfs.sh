#!/usr/bin/env bash
# A minimal Debian root filesystem with what the release binary needs and nothing of Swift (docs/install.md):
#   bash .dist/rootfs.sh [CACHE [PACKAGE,...]]   (CACHE defaults to $SIMCTL_DIST_CACHE, else /var/cache/simctl-dist)
# `debootstrap --variant=minbase` of the build machine's own Debian release (its codename from /etc/os-release), from
# the first Debian mirror in the machine's apt sources, with libcurl4 and ca-certificates added: glibc, libstdc++,
# libgcc_s, libcurl and its libraries, a CA store, a shell. Packed once as CACHE/rootfs-CODENAME-ARCH.tar (about
# 3 minutes the first time) and reused after that; delete the file to make it anew. Prints the tar's path.
# PACKAGE,...: more Debian packages, for a test image (the compose check's backend takes python3 and
# python3-cryptography); they go into a tar of their own, rootfs-CODENAME-ARCH+PACKAGE+....tar.
# Needs root and debootstrap (installed with apt-get where missing). The container image (.dist/image.sh) starts
# from the same tar, and .dist/check.sh runs the binary inside it.
set -euo pipefail
cache="${1:-${SIMCTL_DIST_CACHE:-/var/cache/simctl-dist}}"
. /etc/os-release
codename="${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}"
arch="$(dpkg --print-architecture)"
extra="${2:-}"
tar_file="$cache/rootfs-$codename-$arch${extra:++${extra//,/+}}.tar"
if [ -s "$tar_file" ]; then
  echo "$tar_file"
  exit 0
fi
[ "$(id -u)" = 0 ] || { echo "rootfs: debootstrap needs root" >&2; exit 1; }
mkdir -p "$cache"
if ! command -v debootstrap > /dev/null; then
  echo "rootfs: installing debootstrap" >&2
  apt-get install -y --no-install-recommends debootstrap > "$cache/apt.log" 2>&1 \
    || { apt-get update > "$cache/apt.log" 2>&1 \
      && apt-get install -y --no-install-recommends debootstrap >> "$cache/apt.log" 2>&1; } \
    || { cat "$cache/apt.log" >&2; exit 1; }
fi
# The machine's own Debian mirror (deb822 sources or the one-line format), never a name written here.
mirror="$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2> /dev/null \
  | grep -v -- '-security' | head -1 || true)"
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
  mirror="$(awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; exit}}' \
    /etc/apt/sources.list)"
fi
[ -n "$mirror" ] || { echo "rootfs: no Debian mirror found in the apt sources" >&2; exit 1; }
work="$(mktemp -d "$cache/rootfs.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "rootfs: debootstrap --variant=minbase $codename (with libcurl4, ca-certificates${extra:+; then $extra}) into $work" >&2
started=$SECONDS
log="$cache/debootstrap${extra:++${extra//,/+}}.log"
debootstrap --variant=minbase --include=libcurl4,ca-certificates "$codename" "$work/root" "$mirror" > "$log" 2>&1 \
  || { tail -30 "$log" >&2; exit 1; }
if [ -n "$extra" ]; then
  # With apt inside the new root, which resolves every dependency (debootstrap's --include does not always).
  trap 'umount "$work/root/proc" 2> /dev/null; rm -rf "$work"' EXIT
  mount -t proc proc "$work/root/proc"
  { chroot "$work/root" apt-get update && DEBIAN_FRONTEND=noninteractive chroot "$work/root" apt-get install -y \
    --no-install-recommends ${extra//,/ }; } >> "$log" 2>&1 || { tail -30 "$log" >&2; exit 1; }
  chroot "$work/root" apt-get clean >> "$log" 2>&1
  umount "$work/root/proc"
fi
# Keep the image small: no package lists or caches; the tar has fixed owners and sorted names.
rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"*
tar --sort=name --numeric-owner -C "$work/root" -cf "$tar_file.part" .
mv "$tar_file.part" "$tar_file"
echo "rootfs: made in $((SECONDS - started)) s, $(du -h "$tar_file" | cut -f1)" >&2
echo "$tar_file"
