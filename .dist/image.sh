#!/usr/bin/env bash
# The container image (docs/install.md): .dist/Containerfile over the release archive and the minimal root filesystem.
#   bash .dist/image.sh ARCHIVE.tar.gz [OUT]     (ARCHIVE from .dist/build.sh; OUT defaults to the archive's folder)
# Builds localhost/simctl-appstore:VERSION (and :latest) with buildah (`--isolation chroot`: no daemon, no registry),
# and saves it as OUT/simctl-appstore-VERSION-image.tar (`docker load -i` or `podman load -i` reads it). Installs
# buildah and podman with apt-get where they are missing (needs root). Prints the image's name on the last line.
set -euo pipefail
archive="${1:?usage: image.sh ARCHIVE.tar.gz [OUT]}"
archive="$(cd "$(dirname "$archive")" && pwd)/$(basename "$archive")"
out="${2:-$(dirname "$archive")}"
dist="$(cd "$(dirname "$0")" && pwd)"
for tool in buildah podman; do
  if ! command -v "$tool" > /dev/null; then
    echo "image: installing $tool" >&2
    apt-get install -y --no-install-recommends buildah podman runc > "$out/apt-image.log" 2>&1 \
      || { apt-get update > "$out/apt-image.log" 2>&1 \
        && apt-get install -y --no-install-recommends buildah podman runc >> "$out/apt-image.log" 2>&1; } \
      || { cat "$out/apt-image.log" >&2; exit 1; }
  fi
done
rootfs="$(bash "$dist/rootfs.sh")"
name="$(basename "$archive" .tar.gz)"  # simctl-appstore-VERSION-linux-ARCH
version="${name#simctl-appstore-}"
version="${version%-linux-*}"
context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT
tar -xzf "$archive" -C "$context"
mv "$context/$name"/* "$context/"
rmdir "$context/$name"
ln "$rootfs" "$context/rootfs.tar" 2> /dev/null || cp "$rootfs" "$context/rootfs.tar"
image="localhost/simctl-appstore:$version"
started=$SECONDS
# The archive's SHA-256 and the root filesystem's labels the image: an image already built from both is reused.
sum="$(sha256sum "$archive" | cut -c1-64)"
base="$(sha256sum "$rootfs" | cut -c1-64)"
have="$(podman image inspect --format '{{index .Labels "simctl.archive-sha256"}} {{index .Labels "simctl.rootfs-sha256"}}' \
  "$image" 2> /dev/null || true)"
if [ "$have" = "$sum $base" ]; then
  echo "image: $image is already built from this archive and root filesystem" >&2
else
  buildah build --isolation chroot --layers=false -f "$dist/Containerfile" --label "simctl.archive-sha256=$sum" \
    --label "simctl.rootfs-sha256=$base" -t "$image" -t localhost/simctl-appstore:latest "$context" \
    > "$out/image-build.log" 2>&1 || { tail -30 "$out/image-build.log" >&2; exit 1; }
  echo "image: $image built in $((SECONDS - started)) s" >&2
fi
saved="$out/simctl-appstore-$version-image.tar"
if [ ! -s "$saved" ] || [ "$have" != "$sum $base" ]; then
  rm -f "$saved"
  podman save --quiet --format docker-archive -o "$saved" "$image" > /dev/null
fi
echo "image: saved as $saved ($(du -h "$saved" | cut -f1))" >&2
echo "$image"
