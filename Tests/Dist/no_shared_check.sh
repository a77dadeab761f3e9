#!/usr/bin/env bash
# The suites that read data from outside the repository, on a clone where none is (README, "The two commands"):
#   bash Tests/Dist/no_shared_check.sh          (run from the package root; CI runs it)
# Clones the committed tree into a new temporary folder (nothing named shared/ beside it) and, with no
# SIMCTL_SHARED_DIR, runs `swift test --filter StoreKit` there (the StoreKit import suites: the only ones that read
# ../shared/data/storekit): they must pass, with the real-file tests skipped and the skip naming the missing folder.
# Then, in the same clone without building again: SIMCTL_SHARED_DIR set but empty skips them too (no fall back to
# ../shared), and SIMCTL_SHARED_DIR naming this checkout's ../shared (when it exists) runs them and they pass.
set -euo pipefail
cd "$(dirname "$0")/../.."
checkout="$PWD"
parent="$(mktemp -d)"
trap 'rm -rf "$parent"' EXIT
git clone --quiet --no-local "$checkout" "$parent/simctl"
[ ! -e "$parent/shared" ] || { echo "no_shared_check: $parent/shared exists" >&2; exit 1; }
cd "$parent/simctl"
filter=StoreKit
run() {  # LABEL, then the environment's changes; the output in $parent/LABEL.txt
  local label="$1"
  shift
  local status=0
  env "$@" swift test ${built:+--skip-build} --filter "$filter" > "$parent/$label.txt" 2>&1 || status=$?
  if [ "$status" != 0 ] || grep -Eq "Fatal error|Crash|error: Exited with|failed after" "$parent/$label.txt"; then
    tail -40 "$parent/$label.txt" >&2
    echo "no_shared_check: $label: swift test --filter $filter exited $status" >&2
    exit 1
  fi
  built=1
}
built=""
started=$SECONDS
run no-shared -u SIMCTL_SHARED_DIR
grep -q "$parent/shared/data/storekit is not there" "$parent/no-shared.txt" \
  || { tail -20 "$parent/no-shared.txt" >&2; echo "no_shared_check: no skip naming the missing folder" >&2; exit 1; }
echo "no shared/ beside the clone: $(grep -Ec '(Test|Suite) .* skipped' "$parent/no-shared.txt") skipped," \
  "$(grep -E '^.* Test run with [0-9]+ tests? .*passed' "$parent/no-shared.txt" | tail -1 | sed 's/^[^A-Za-z]*//')" \
  "($((SECONDS - started)) s with the build)"
run empty SIMCTL_SHARED_DIR=
grep -q "SIMCTL_SHARED_DIR is set but empty" "$parent/empty.txt" \
  || { tail -20 "$parent/empty.txt" >&2; echo "no_shared_check: an empty SIMCTL_SHARED_DIR did not skip" >&2; exit 1; }
echo "SIMCTL_SHARED_DIR empty: skipped, no fall back to ../shared"
if [ -d "$checkout/../shared/data/storekit" ]; then
  run named SIMCTL_SHARED_DIR="$(cd "$checkout/../shared" && pwd)"
  if grep -Eq '(Test|Suite) .* skipped' "$parent/named.txt"; then
    echo "no_shared_check: SIMCTL_SHARED_DIR named the data, yet a test was skipped" >&2
    exit 1
  fi
  echo "SIMCTL_SHARED_DIR naming ../shared: every StoreKit test ran and passed"
fi
