#!/usr/bin/env bash
# Benchmark of `simctl check` (not in CI): cases per minute and notifications per second against the correct Python
# reference backend, and the time of each buggy backend's check with its shrinking.
# Usage: Tests/Check/bench.sh [SIMCTL] [CASES]   (defaults: .build/release/simctl if built, else debug; 200)
set -euo pipefail
cd "$(dirname "$0")/../.."
simctl="${1:-$([ -x .build/release/simctl ] && echo .build/release/simctl || echo .build/debug/simctl)}"
cases="${2:-200}"
out="$(mktemp -d)"
pid=""
trap 'if [ -n "$pid" ]; then kill "$pid" 2> /dev/null || true; fi; rm -rf "$out"' EXIT
now() { python3 -c 'import time; print(time.time())'; }
for bug in "" fail-ends-access ignore-revoke older-overwrites past-refund-ends-access no-billing-recovery; do
  python3 Tests/Check/backend.py ${bug:+--bug "$bug"} > "$out/ready" &
  pid=$!
  for _ in $(seq 100); do [ -s "$out/ready" ] && break; sleep 0.1; done
  port="$(sed -n 's/^listening on //p' "$out/ready")"
  t0=$(now)
  "$simctl" check Tests/Check/header.yaml --cases "$cases" --out "$out/x" --deliver "http://127.0.0.1:$port/" \
    --entitlements "http://127.0.0.1:$port/entitlements/{originalTransactionId}" > "$out/report" 2> /dev/null || true
  t1=$(now)
  kill "$pid"; wait "$pid" 2> /dev/null || true; pid=""
  python3 - "$t0" "$t1" "${bug:-correct}" "$out/report" << 'PY'
import re, sys
t0, t1, name, report = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], open(sys.argv[4]).read()
m = re.search(r"(\d+) cases?, (\d+) notifications", report)
cases, notifications = int(m.group(1)), int(m.group(2))
seconds = t1 - t0
if name == "correct":
    print(f"correct: {cases} cases, {notifications} notifications in {seconds:.1f} s: "
          f"{cases / seconds * 60:.0f} cases/min, {notifications / seconds:.0f} notifications/s")
else:
    print(f"{name}: found in case {cases}, check with shrinking {seconds:.1f} s")
PY
done
