#!/usr/bin/env bash
# `simctl check` against the Python reference backends (Tests/Check/backend.py, docs/check.md): the correct backend
# passes CASES cases (exit 0); each buggy one is found (exit 1), its counterexample.yaml has at most 12 timeline
# entries, `simctl check --replay` of it against a fresh backend exits 1 again, and `simctl run` of it exits 0.
# Then Tests/Check/status_backend.py, which calls Get All Subscription Statuses on `simctl check --port` with Apple's
# App Store Server Library on each notification, passes CASES cases too (with the server's log checked for the calls);
# it needs Tests/Conformance/.venv (Tests/Conformance/setup.sh) and is skipped, with a line saying so, without it.
# Usage: Tests/Check/check_backends.sh [SIMCTL] [CASES] [STATUS_CASES]   (defaults: .build/debug/simctl, 200, CASES;
# the statuses backend makes an API call per notification, about 0.5 s a case on a debug build, so CI gives it 50)
set -euo pipefail
cd "$(dirname "$0")/../.."
simctl="${1:-.build/debug/simctl}"
cases="${2:-200}"
status_cases="${3:-$cases}"
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

# Starts backend.py (or, with PYTHON and SCRIPT set, another backend) with the given options; sets $port once it
# listens.
start_backend() {
  local ready="$out/ready"
  rm -f "$ready"
  "${PYTHON:-python3}" "${SCRIPT:-Tests/Check/backend.py}" "$@" > "$ready" &
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

started=$(date +%s)
start_backend
status=0
"$simctl" check "$header" --deliver "http://127.0.0.1:$port/" \
  --entitlements "http://127.0.0.1:$port/entitlements/{originalTransactionId}" --cases "$cases" \
  --out "$out/correct" --junit "$out/correct.xml" > "$out/correct.txt" || status=$?
stop_backend
if [ "$status" != 0 ]; then
  cat "$out/correct.txt"
  echo "check: the correct backend: exit $status, expected 0" >&2
  exit 1
fi
echo "correct: $(head -1 "$out/correct.txt")"

for bug in fail-ends-access ignore-revoke older-overwrites past-refund-ends-access no-billing-recovery; do
  t0=$(date +%s)
  start_backend --bug "$bug"
  status=0
  "$simctl" check "$header" --deliver "http://127.0.0.1:$port/" \
    --entitlements "http://127.0.0.1:$port/entitlements/{originalTransactionId}" --cases "$cases" \
    --out "$out/$bug" > "$out/$bug.txt" || status=$?
  stop_backend
  if [ "$status" != 1 ]; then
    cat "$out/$bug.txt"
    echo "check: --bug $bug: exit $status, expected 1 (a divergence)" >&2
    exit 1
  fi
  file="$out/$bug/counterexample.yaml"
  entries="$(python3 -c 'import sys
lines = open(sys.argv[1]).read().split("\n")
inside = False
count = 0
for line in lines:
    if line.startswith("timeline:"):
        inside = True
        continue
    if inside and line and not line.startswith(" ") and not line.startswith("-"):
        inside = False
    if inside and line.lstrip().startswith("- at:"):
        count += 1
print(count)' "$file")"
  if [ "$entries" -gt 12 ]; then
    echo "check: --bug $bug: the counterexample has $entries timeline entries, more than 12" >&2
    exit 1
  fi
  "$simctl" run "$file" > /dev/null || {
    echo "check: --bug $bug: simctl run counterexample.yaml does not exit 0" >&2
    exit 1
  }
  start_backend --bug "$bug"
  status=0
  "$simctl" check --replay "$file" --deliver "http://127.0.0.1:$port/" \
    --entitlements "http://127.0.0.1:$port/entitlements/{originalTransactionId}" > "$out/$bug-replay.txt" || status=$?
  stop_backend
  if [ "$status" != 1 ]; then
    cat "$out/$bug-replay.txt"
    echo "check: --bug $bug: --replay of its counterexample: exit $status, expected 1" >&2
    exit 1
  fi
  echo "$bug: found ($(sed -n 's/^check: \(case [0-9]* diverges\).*/\1/p' "$out/$bug.txt")), shrunk to $entries" \
    "timeline entries, replay diverges, simctl run exits 0 ($(($(date +%s) - t0)) s)"
done

venv=Tests/Conformance/.venv/bin/python
if [ -x "$venv" ]; then
  t0=$(date +%s)
  api_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  PYTHON="$venv" SCRIPT=Tests/Check/status_backend.py start_backend --api "http://127.0.0.1:$api_port" \
    --public-key-out "$out/api-key.pub.pem"
  status=0
  "$simctl" check "$header" --deliver "http://127.0.0.1:$port/" \
    --entitlements "http://127.0.0.1:$port/entitlements/{originalTransactionId}" --cases "$status_cases" \
    --port "$api_port" --api-key-pem "$out/api-key.pub.pem" --log "$out/status-server.log" \
    --out "$out/status" > "$out/status.txt" 2> "$out/status.err" || status=$?
  stop_backend
  if [ "$status" != 0 ]; then
    cat "$out/status.txt" "$out/status.err"
    tail -20 "$out/status-server.log"
    echo "check: the statuses backend: exit $status, expected 0" >&2
    exit 1
  fi
  calls="$(grep -c 'GET /inApps/v1/subscriptions/.* -> 200' "$out/status-server.log" || true)"
  if [ "$calls" -lt "$status_cases" ]; then
    echo "check: the statuses backend made $calls successful Get All Subscription Statuses calls, expected at least" \
      "one per case" >&2
    exit 1
  fi
  echo "statuses (--port): $(head -1 "$out/status.txt"); $calls Get All Subscription Statuses calls answered 200" \
    "($(($(date +%s) - t0)) s)"
else
  echo "statuses (--port): skipped, no $venv (run Tests/Conformance/setup.sh)"
fi
echo "check_backends: $cases cases per backend ($status_cases for the statuses one), $(($(date +%s) - started)) s in all"
