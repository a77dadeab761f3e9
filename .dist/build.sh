#!/usr/bin/env bash
# The release binary and its archive (docs/install.md):
#   bash .dist/build.sh [OUT]          (OUT defaults to .dist/out; run from anywhere inside the checkout)
# 1. Copies the committed tree (HEAD, `git archive`: uncommitted changes are not in a release) into OUT/src and writes
#    the commit into its copy of Sources/SimctlCommand/Version.swift (`simctl --version` prints it).
# 2. Builds every product in release mode with the Swift standard library and Foundation linked statically
#    (`--static-swift-stdlib`), with DWARF 4 debug information for callgrind (valgrind 3.19 cannot read DWARF 5;
#    the flag changes no code). The build stays in OUT/src/.build/release for the steps that need release binaries
#    (the callgrind guard); a second run reuses it.
# 3. Strips a copy of simctl and packs simctl-appstore-VERSION-linux-ARCH.tar.gz with LICENSE, README.md and Scenarios/,
#    and its SHA-256 file, in OUT.
# Installs libcurl4-openssl-dev with apt-get where it is missing (FoundationNetworking links -lcurl; needs root).
# Prints the archive's path on the last line.
set -euo pipefail
top="$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
cd "$top"
out="${1:-.dist/out}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

if ! dpkg -s libcurl4-openssl-dev > /dev/null 2>&1; then
  echo "build: installing libcurl4-openssl-dev (FoundationNetworking's static link needs libcurl's headers and -lcurl)"
  [ "$(id -u)" = 0 ] || { echo "build: libcurl4-openssl-dev is missing; install it as root" >&2; exit 1; }
  apt-get install -y --no-install-recommends libcurl4-openssl-dev > "$out/apt.log" 2>&1 \
    || { apt-get update > "$out/apt.log" 2>&1 && apt-get install -y --no-install-recommends libcurl4-openssl-dev \
      >> "$out/apt.log" 2>&1; } || { cat "$out/apt.log" >&2; exit 1; }
fi

commit="$(git rev-parse --short=12 HEAD)"
[ -z "$(git status --porcelain --untracked-files=no)" ] \
  || echo "build: the work tree has uncommitted changes; building the committed tree $commit without them"
version="$(sed -n 's/^package let simctlVersion = "\(.*\)"$/\1/p' Sources/SimctlCommand/Version.swift)"
[ -n "$version" ] || { echo "build: no simctlVersion in Sources/SimctlCommand/Version.swift" >&2; exit 1; }
arch="$(uname -m)"
name="simctl-appstore-$version-linux-$arch"

# 1. The committed tree, keeping an earlier build folder.
src="$out/src"
mkdir -p "$src"
find "$src" -mindepth 1 -maxdepth 1 ! -name .build -exec rm -rf {} +
git archive --format=tar HEAD | tar -x -C "$src"
sed -i "s/^package let simctlCommit = \"\"$/package let simctlCommit = \"$commit\"/" \
  "$src/Sources/SimctlCommand/Version.swift"
grep -q "^package let simctlCommit = \"$commit\"$" "$src/Sources/SimctlCommand/Version.swift" \
  || { echo "build: could not write the commit into Version.swift" >&2; exit 1; }

# 2. Release build, static Swift runtime and Foundation.
echo "build: swift build -c release --static-swift-stdlib -Xcc -gdwarf-4 ($name, commit $commit)"
started=$SECONDS
(cd "$src" && swift build -c release --static-swift-stdlib -Xcc -gdwarf-4 2>&1) > "$out/build.log" \
  || { tail -40 "$out/build.log" >&2; echo "build: swift build failed (whole log: $out/build.log)" >&2; exit 1; }
echo "build: built in $((SECONDS - started)) s"
binary="$src/.build/release/simctl"
if ldd "$binary" | grep -Ei 'swift|Foundation|libdispatch|libBlocksRuntime|icu' > "$out/ldd-swift.txt"; then
  cat "$out/ldd-swift.txt" >&2
  echo "build: the binary links a Swift library dynamically" >&2
  exit 1
fi

# 3. The archive.
stage="$out/$name"
rm -rf "$stage"
mkdir -p "$stage"
cp "$binary" "$stage/simctl"
strip "$stage/simctl"
cp -R "$src/LICENSE" "$src/README.md" "$src/Scenarios" "$stage/"
"$stage/simctl" --version | grep -q "(commit $commit)" || { echo "build: --version does not name $commit" >&2; exit 1; }
rm -f "$out/$name.tar.gz" "$out/$name.tar.gz.sha256"
# Fixed owner and times, sorted names: the same tree gives the same archive.
(cd "$out" && tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$(git -C "$top" log -1 --format=%ct)" \
  -cf - "$name" | gzip -n > "$name.tar.gz")
(cd "$out" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
echo "build: $(du -h "$stage/simctl" | cut -f1) stripped binary; it needs:"
ldd "$stage/simctl" | sed 's/^/  /'
echo "$out/$name.tar.gz"
