#!/usr/bin/env bash
# Issue 47: `simctl check` on existing backends, against the reference backend's modes (Tests/Check/backend.py):
#  1. --keep-going over CASES cases on a backend with two bugs at once (fail-ends-access and past-refund-ends-access)
#     finds both classes, shrinks each (at most 12 timeline entries, `simctl run` of each exits 0), summary.json and
#     the JUnit file name both;
#  2. a backend that answers 500 to TEST: a refusal class (status 500); with --accept-status TEST=500 the check passes;
#  3. a backend that decides access from stored dates and the query's {now} passes;
#  4. the same with a one-hour tolerance passes with --tolerance 1h (tolerated answers reported) and fails without;
#  5. a persistent (file-backed) backend: two consecutive --epoch auto runs both pass (the backend restarted between
#     them on the same file); a third at --epoch 0, which repeats the first run's ids, diverges.
# Needs python3 only (standard library). Usage: Tests/Check/keep_going_check.sh [SIMCTL] [CASES] (defaults:
# .build/debug/simctl, 200).
set -euo pipefail
cd "$(dirname "$0")/../.."
simctl="${1:-.build/debug/simctl}"
cases="${2:-200}"
header=Tests/Check/header.yaml
out="$(mktemp -d)"
backend_pid=""
stop_backend() {
  if [ -n "$backend_pid" ]; then
    kill "$backend_pid" 2> /dev/null || true
    wait "$backend_pid" 2> /dev/null || true
    backend_pid=""
  fi
}
trap 'stop_backend; rm -rf "$out"' EXIT
start_backend() {
  local ready="$out/ready"
  rm -f "$ready"
  python3 Tests/Check/backend.py "$@" > "$ready" &
  backend_pid=$!
  for _ in $(seq 100); do
    if [ -s "$ready" ]; then break; fi
    sleep 0.1
  done
  port="$(sed -n 's/^listening on //p' "$ready")"
  if [ -z "$port" ]; then
    echo "the backend $* did not start" >&2
    exit 1
  fi
}
fail() {
  echo "keep_going_check: $*" >&2
  exit 1
}
# check NAME EXPECTED-EXIT [simctl check options...]: runs the check against the backend on $port.
check() {
  local name="$1" expected="$2"
  shift 2
  local status=0
  "$simctl" check "$header" --deliver "http://127.0.0.1:$port/" "$@" > "$out/$name.txt" 2> "$out/$name.err" ||
    status=$?
  if [ "$status" != "$expected" ]; then
    cat "$out/$name.txt" "$out/$name.err"
    fail "$name: exit $status, expected $expected"
  fi
}
entitlements="http://127.0.0.1:PORT/entitlements/{originalTransactionId}"
query() { echo "${entitlements/PORT/$port}${1:-}"; }
started=$(date +%s)

# 1. Two bugs at once, every class in one run.
t0=$(date +%s)
start_backend --bug fail-ends-access,past-refund-ends-access
check two-bugs 1 --entitlements "$(query)" --cases "$cases" --keep-going --out "$out/two" --junit "$out/two.xml"
stop_backend
python3 - "$out/two" "$out/two.xml" << 'PY'
import json, os, sys
summary = json.load(open(os.path.join(sys.argv[1], "summary.json")))
classes = summary["classes"]
def found(kind, notification):
    return [c for c in classes if c["kind"] == kind and c["notification"].startswith(notification)]
assert found("deniesAccess", "DID_FAIL_TO_RENEW/GRACE_PERIOD"), f"no fail-ends-access class: {classes}"
assert found("deniesAccess", "REFUND"), f"no past-refund-ends-access class: {classes}"
for c in classes:
    assert c["timelineEntries"] <= 12, f"class {c['number']} shrunk to {c['timelineEntries']} entries"
    assert os.path.exists(os.path.join(sys.argv[1], c["yaml"])) and os.path.exists(os.path.join(sys.argv[1], c["jsonl"]))
junit = open(sys.argv[2]).read()
assert junit.count("<testcase") == len(classes) and junit.count("<failure") == len(classes), junit[:400]
assert summary["vocabulary"], "the summary lists no vocabulary"
PY
for file in "$out"/two/counterexample-*.yaml; do
  "$simctl" run "$file" > /dev/null || fail "simctl run $file does not exit 0"
done
echo "two bugs: $(head -1 "$out/two-bugs.txt") ($(($(date +%s) - t0)) s)"
sed -n '/^  N  cases/,/^$/p' "$out/two-bugs.txt"

# 2. A kind answered 500: a refusal class; accepted, the rest passes.
t0=$(date +%s)
start_backend --refuse TEST
check refuses 1 --entitlements "$(query)" --cases "$cases" --keep-going --out "$out/refuses"
python3 - "$out/refuses/summary.json" << 'PY'
import json, sys
classes = json.load(open(sys.argv[1]))["classes"]
refusals = [c for c in classes if c["kind"] == "refusesNotification"]
assert refusals and all(c["notification"] == "TEST" and c["httpStatus"] == 500 for c in refusals), classes
assert len(refusals) == len(classes), f"classes other than the refusal: {classes}"
PY
check refuses-accepted 0 --entitlements "$(query)" --cases "$cases" --keep-going --accept-status TEST=500 \
  --out "$out/refuses-accepted" --epoch 100000
stop_backend
grep -q '^accepted refusals: [1-9]' "$out/refuses-accepted.txt" || fail "the accepted refusals are not reported"
echo "refuses TEST: $(head -1 "$out/refuses.txt"); with --accept-status TEST=500: $(head -1 "$out/refuses-accepted.txt")" \
  "($(($(date +%s) - t0)) s)"

# 3. and 4. Access from stored dates and {now}; with a one-hour tolerance.
t0=$(date +%s)
start_backend --clock
check clock 0 --entitlements "$(query '?now={now}')" --cases "$cases" --keep-going --out "$out/clock"
stop_backend
start_backend --clock --keep-access 3600000
check tolerance 0 --entitlements "$(query '?now={now}')" --cases "$cases" --keep-going --tolerance 1h \
  --out "$out/tolerance"
grep -q '^tolerated: [1-9]' "$out/tolerance.txt" || fail "no tolerated answer reported with --tolerance 1h"
check no-tolerance 1 --entitlements "$(query '?now={now}')" --cases "$cases" --keep-going --out "$out/no-tolerance" \
  --epoch 100000
stop_backend
echo "clock: $(head -1 "$out/clock.txt"); --tolerance 1h: $(head -1 "$out/tolerance.txt")," \
  "$(sed -n 's/^tolerated: \([0-9]*\).*/\1/p' "$out/tolerance.txt") tolerated; without: $(head -1 "$out/no-tolerance.txt")" \
  "($(($(date +%s) - t0)) s)"

# 5. A persistent backend: --epoch auto twice, then the first run's epoch again.
t0=$(date +%s)
state="$out/backend-state.json"
start_backend --state "$state"
check epoch-1 0 --entitlements "$(query)" --cases 50 --keep-going --epoch auto --out "$out/persistent"
stop_backend
first="$(cat "$out/persistent/.simctl-epoch")"
start_backend --state "$state"
check epoch-2 0 --entitlements "$(query)" --cases 50 --keep-going --epoch auto --out "$out/persistent"
second="$(cat "$out/persistent/.simctl-epoch")"
[ "$second" -gt "$first" ] || fail "--epoch auto did not move on: $first then $second"
stop_backend
start_backend --state "$state"
check epoch-reused 1 --entitlements "$(query)" --cases 50 --no-shrink --epoch "$(sed -n 's/^epochs: \([0-9]*\) .*/\1/p' "$out/epoch-1.txt")" \
  --keep-going --out "$out/reused"
stop_backend
echo "persistent: two --epoch auto runs pass (next free epoch $first, then $second); the first run's epochs again:" \
  "$(head -1 "$out/epoch-reused.txt") ($(($(date +%s) - t0)) s)"
echo "keep_going_check: $cases cases per run, $(($(date +%s) - started)) s in all"
