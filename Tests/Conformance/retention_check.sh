#!/usr/bin/env bash
# Retention Messaging against Apple's Python library (docs/server.md, "Retention Messaging"), run by .ci/run:
#   bash Tests/Conformance/retention_check.sh [SIMCTL]     (default .build/debug/simctl; run from the package root)
# 1. Creates Tests/Conformance/.venv with Apple's app-store-server-library (pinned in requirements.txt) if needed.
# 2. Tests/Conformance/retention_client.py: Apple's client calls all 14 Retention Messaging methods against
#    `simctl serve` (their answers and error codes), a Get Retention Message endpoint written with Apple's library
#    verifies every realtime request (verify_and_decode_realtime_request), viewCancellation records the message, the
#    switch-plan product and the promotional offer it answered (then accepted), the default message for a slow
#    (0.9 s) and a malformed answer; the performance test passes for the fast endpoint and fails for the slow one.
# 3. docs/server.md's Retention Messaging example (its ```python retention block), as written.
# About 40 s on a debug build (two performance tests of 100 requests; the slow one waits 700 ms per request).
set -euo pipefail
cd "$(dirname "$0")/../.."
simctl="${1:-.build/debug/simctl}"
[ -x "$simctl" ] || { echo "retention_check: no simctl at '$simctl' (build it first)" >&2; exit 1; }
simctl="$(realpath "$simctl")"
bash Tests/Conformance/setup.sh
python=Tests/Conformance/.venv/bin/python
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$simctl" certs export "$work/chain" > /dev/null

echo "== retention: Apple's client, all 14 Retention Messaging methods, realtime requests, performance tests"
"$python" Tests/Conformance/retention_client.py "$simctl" Tests/Conformance/retention-scenario.yaml \
  "$work/chain/root.der"

echo "== retention: docs/server.md's Retention Messaging example"
awk '/^```python retention$/{on=1; next} /^```$/{on=0} on' docs/server.md > "$work/retention_example.py"
[ -s "$work/retention_example.py" ] || { echo "retention_check: docs/server.md has no retention example" >&2; exit 1; }
root="$(pwd)"
(cd "$work" && SIMCTL="$simctl" SCENARIO="$root/Tests/Conformance/retention-scenario.yaml" "$root/$python" retention_example.py)
