#!/usr/bin/env bash
# docs/embedding.md, followed as a new user would (issue 51): a package OUTSIDE this one, made only of the page's
# blocks that carry a `<!-- file: PATH -->` line (the manifest, every Swift file, the scenario file), with this
# project's Scenarios/StoreKit/NightSky.storekit as the app's StoreKit file beside the scenario, depending on this
# checkout by path. It is built with warnings as errors and its tests run; every ```swift block of the page must
# carry a file line, so every Swift example of the page is compiled and run. The note on the package's name is
# checked too: with the checkout in a folder not named simctl, `.package(path:)` with `package: "simctl"` is refused
# and `.package(name: "simctl", path:)` is accepted.
# Usage: Tests/Layers/check_embedding_docs.sh [WORK_DIR]   (default: a new temporary folder, removed at the end)
# Prints the time each step took: the first build is the dependency's too (no cache is shared with this package).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
doc="$root/docs/embedding.md"
work="${1:-}"
if [ -z "$work" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
fi
# The long steps (the builds and the test run) run in the background and are waited for (`step`): bash runs a trap
# only once its foreground child has ended. An interrupt or a termination then stops the step and every process under
# it (SwiftPM starts its compilers in process groups of their own, so the whole tree is walked), then the script exits
# and the EXIT trap removes the temporary folder.
child=""
tree() {
  local pid
  for pid in $(pgrep -P "$1" || true); do tree "$pid"; done
  echo "$1"
}
stop() {
  trap - INT TERM
  if [ -n "$child" ]; then
    local pids
    pids="$(tree "$child")"
    kill -TERM $pids 2>/dev/null || true
    sleep 2
    kill -KILL $pids 2>/dev/null || true
    wait "$child" 2>/dev/null || true
  fi
  echo "embedding docs: interrupted" >&2
  exit "$1"
}
trap 'stop 130' INT
trap 'stop 143' TERM
step() {
  local status=0
  "$@" &
  child=$!
  wait "$child" || status=$?
  child=""
  return "$status"
}
mkdir -p "$work"
package="$work/MyAppTests"
rm -rf "$package"
mkdir -p "$package"
# The checkout under two names: `simctl` (the page's `../simctl`) and one that is not `simctl` (the name rule).
ln -sfn "$root" "$work/simctl"
ln -sfn "$root" "$work/checkout-elsewhere"

start=$(date +%s)
python3 - "$doc" "$package" <<'PY'
import os, re, sys
doc, package = sys.argv[1], sys.argv[2]
text = open(doc, encoding="utf-8").read()
blocks = re.findall(r"(<!-- file: ([^ ]+) -->\n)?```(swift|yaml)\n(.*?)```", text, re.S)
unmarked = [body.split("\n")[0] for marker, path, lang, body in blocks if lang == "swift" and not marker]
if unmarked:
    sys.exit(f"{doc}: every ```swift block needs a <!-- file: PATH --> line; these have none: {unmarked}")
written = {}
for marker, path, lang, body in blocks:
    if not marker:
        continue
    if path in written:
        sys.exit(f"{doc}: two blocks for {path}")
    target = os.path.join(package, path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as f:
        f.write(body)
    written[path] = body
swift_files = [p for p in written if p.endswith(".swift") and p != "Package.swift"]
if "Package.swift" not in written or not swift_files:
    sys.exit(f"{doc}: expected a Package.swift block and Swift files, found {sorted(written)}")
print(f"embedding docs: {len(written)} files from {doc}: " + ", ".join(sorted(written)))
PY
# The app's StoreKit file, beside the scenario file (the page's Scenarios/StoreKit/).
mkdir -p "$package/Tests/EntitlementTests/Scenarios/StoreKit"
cp "$root/Scenarios/StoreKit/NightSky.storekit" "$package/Tests/EntitlementTests/Scenarios/StoreKit/"

echo "== the package's name (docs/embedding.md, 'The package's name')"
names="$work/names"
rm -rf "$names" && mkdir -p "$names/Tests/T" && echo 'import SubscriptionSimulator' >"$names/Tests/T/T.swift"
manifest() {
  cat >"$names/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "Names",
    dependencies: [$1],
    targets: [.testTarget(name: "T", dependencies: [.product(name: "SubscriptionSimulator", package: "$2")])]
)
SWIFT
}
manifest '.package(path: "../checkout-elsewhere")' simctl
if out="$(cd "$names" && swift package --scratch-path "$work/names-build" dump-package 2>&1)"; then
  echo "expected .package(path:) with package: \"simctl\" to be refused for a folder named checkout-elsewhere" >&2
  exit 1
fi
grep -q "unknown package 'simctl'" <<<"$out" || { echo "unexpected error: $out" >&2; exit 1; }
echo "refused, as the page says: $(grep -o "unknown package 'simctl'.*" <<<"$out" | head -1)"
manifest '.package(path: "../checkout-elsewhere")' checkout-elsewhere
(cd "$names" && swift package --scratch-path "$work/names-build" dump-package >/dev/null)
manifest '.package(name: "simctl", path: "../checkout-elsewhere")' simctl
(cd "$names" && swift package --scratch-path "$work/names-build" dump-package >/dev/null)
echo "accepted: package: \"checkout-elsewhere\" with .package(path:), package: \"simctl\" with .package(name:path:)"

echo "== build the docs' package (warnings are errors)"
cd "$package"
build_start=$(date +%s)
step swift build --build-tests -Xswiftc -warnings-as-errors
build_end=$(date +%s)
echo "== run its tests"
step bash -c 'set -o pipefail; swift test --skip-build 2>&1 | tee "$0"' "$work/test.log"
test_end=$(date +%s)
grep -Eq "Test run with [0-9]+ tests? (in [0-9]+ suites? )?passed" "$work/test.log" \
  || { echo "embedding docs: the Swift Testing run did not pass" >&2; exit 1; }
grep -Eq "Executed [0-9]+ tests?, with 0 failures" "$work/test.log" \
  || { echo "embedding docs: the XCTest run did not pass" >&2; exit 1; }
echo "embedding docs: green; files written in $((build_start - start)) s (with the name checks), first build" \
  "$((build_end - build_start)) s, tests $((test_end - build_end)) s, total $((test_end - start)) s"
