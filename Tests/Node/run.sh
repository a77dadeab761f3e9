#!/usr/bin/env bash
# Runs docs/server.md's Node.js snippets (section "From Node.js, with its standard library only"), extracted as
# written, with Node's standard library only:
#   (a) simctl-verify.mjs over a signed run and every negative fixture (Tests/Node/verify_test.mjs);
#   (b) statuses.mjs: the API token, Get All Subscription Statuses against `simctl serve`, its signed answer, and the
#       401s of a DER signature and of milliseconds;
#   (c) webhook.mjs judged by `simctl check` (exit 0), then the same check signed by the default chain (exit 2:
#       every delivery refused, so the webhook verifies).
# Skips, saying so, when `node` is not installed.
#   run.sh SIMCTL [CASES]
set -euo pipefail
if ! command -v node > /dev/null; then
  echo "node is not installed: docs/server.md's Node.js snippets skipped"
  exit 0
fi
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
simctl="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cases="${2:-20}"
work="$(mktemp -d)"
webhook_pid=""
cleanup() {
  if [ -n "$webhook_pid" ]; then kill "$webhook_pid" 2> /dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
echo "node $(node --version); snippets from docs/server.md:"
bash "$here/extract.sh" "$repo/docs/server.md" "$work"
for name in simctl-verify.mjs statuses.mjs webhook.mjs; do
  [ -f "$work/$name" ] || { echo "docs/server.md has no \`// $name\` block" >&2; exit 1; }
done
# The folder the snippets run in: the docs' relative paths (Scenarios/, Tests/Check/header.yaml, chain/).
ln -s "$repo/Scenarios" "$work/Scenarios"
mkdir -p "$work/Tests/Check"
ln -s "$repo/Tests/Check/header.yaml" "$work/Tests/Check/header.yaml"
cd "$work"
"$simctl" certs export chain --environment Sandbox --ca-seed my-team-ca > /dev/null

echo "== (a) simctl-verify.mjs: a signed run, and every negative fixture"
"$simctl" run Scenarios/cancel-during-grace.yaml --environment Sandbox --ca-seed my-team-ca --format jsonl > run.jsonl
"$simctl" certs negative-fixtures Scenarios/cancel-during-grace.yaml negative --environment Sandbox \
  --ca-seed my-team-ca > /dev/null
"$simctl" certs negative-fixtures Scenarios/cancel-during-grace.yaml negative-production --environment Production \
  --ca-seed my-team-ca > /dev/null
node "$here/verify_test.mjs" "$work"

echo "== (b) statuses.mjs: the API token, Get All Subscription Statuses, the signed answer, two 401s"
SIMCTL="$simctl" node statuses.mjs

echo "== (c) webhook.mjs judged by simctl check ($cases cases)"
check_with() {
  PORT=0 node webhook.mjs > webhook.out 2>&1 &
  webhook_pid=$!
  local port=""
  for _ in $(seq 1 100); do
    port="$(sed -n 's/^listening on \([0-9]*\)$/\1/p' webhook.out)"
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { echo "webhook.mjs did not start:" >&2; cat webhook.out >&2; exit 1; }
  set +e
  "$simctl" check Tests/Check/header.yaml --environment Sandbox "$@" --cases "$cases" --no-shrink --out check-out \
    --deliver "http://127.0.0.1:$port/" --entitlements "http://127.0.0.1:$port/entitlements/{originalTransactionId}" \
    > check.out 2> check.err
  status=$?
  set -e
  kill "$webhook_pid"
  wait "$webhook_pid" 2> /dev/null || true
  webhook_pid=""
}
check_with --ca-seed my-team-ca
cat check.out
if [ "$status" -ne 0 ]; then
  echo "simctl check against webhook.mjs: exit $status, expected 0" >&2
  cat check.err >&2
  exit 1
fi
check_with
if [ "$status" -ne 2 ]; then
  echo "simctl check signed by the default chain: exit $status, expected 2 (every delivery refused)" >&2
  cat check.out check.err >&2
  exit 1
fi
grep -q "not delivered after its last attempt\|cannot be judged" check.out check.err || {
  echo "the check signed by the default chain does not say the backend cannot be judged" >&2
  cat check.out check.err >&2
  exit 1
}
echo "signed by the default chain instead: every delivery refused, the check cannot be judged (exit 2), as expected"
echo "node snippets: passed"
