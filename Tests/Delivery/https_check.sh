#!/usr/bin/env bash
# HTTPS delivery against the system's trust store (docs/delivery.md, "HTTPS"), run by .ci/run:
#   bash Tests/Delivery/https_check.sh [SIMCTL]     (default .build/debug/simctl; run from the package root)
# 1. Makes a throwaway CA and a server certificate for 127.0.0.1 with openssl, in a temporary folder, and starts
#    Tests/Delivery/https_receiver.py with it.
# 2. Before the CA is trusted: every attempt is TLS_ISSUE and the run exits 2.
# 3. Runs docs/delivery.md's "trust a test CA" block (copy into /usr/local/share/ca-certificates, update-ca-certificates,
#    deliver, remove): the documented commands themselves, with this check's file names and port.
# 4. With the CA trusted, delivers every scenario and compares the bodies received with `simctl run --format jsonl`
#    byte for byte (one connection, in order; four connections, as a set).
# 5. With the CA trusted, `simctl check --deliver https://...` against Tests/Check/backend.py serving HTTPS
#    (--tls-cert/--tls-key; its entitlement queries over its plain HTTP port, as simctl's query client is http://
#    only, which `--entitlements https://...` shows with exit 64): the correct backend agrees over CHECK_CASES cases
#    (default 20, exit 0), the fail-ends-access one diverges (exit 1). Before the CA is trusted, the same check
#    cannot judge the backend (exit 2).
# 6. With the CA trusted, SIGTERM while a slow webhook (HOLD_SECONDS=20) holds an attempt of `simctl run --deliver
#    https://...`: the URLSession transport cuts it short at once, the delivery log records it (`"cutShort":true`,
#    OTHER), and the run exits 143 within 6 s (docs/reliability.md, "Shutdown").
# Changes the system store, so it needs root (CI and the development machine run as root) and a Debian-style
# update-ca-certificates; the CA is removed again on every exit path.
set -euo pipefail
cd "$(dirname "$0")/../.."
simctl="${1:-.build/debug/simctl}"
store=/usr/local/share/ca-certificates

for tool in openssl python3 update-ca-certificates; do
  command -v "$tool" > /dev/null || { echo "https_check: '$tool' is required" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "https_check: adding a CA to the system store needs root" >&2; exit 1; }

work="$(mktemp -d)"
ca_file="simctl-https-check-$$.crt"
receiver=""
backend=""
check_cases="${CHECK_CASES:-20}"
cleanup() {
  local status=$?
  set +e
  if [ -e "$store/$ca_file" ]; then
    rm -f "$store/$ca_file"
    update-ca-certificates --fresh > /dev/null 2>&1
  fi
  [ -n "$receiver" ] && kill "$receiver" 2> /dev/null && wait "$receiver" 2> /dev/null
  [ -n "$backend" ] && kill "$backend" 2> /dev/null && wait "$backend" 2> /dev/null
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

# 1. The CA and the server certificate.
bash Tests/Delivery/make_test_ca.sh "$work" "simctl https check CA $$"

start_receiver() {
  : > "$work/bodies"
  python3 Tests/Delivery/https_receiver.py "$work/server.pem" "$work/server.key" "$work/bodies" > "$work/port" &
  receiver=$!
  for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
  port="$(head -1 "$work/port")"
  [ -n "$port" ] || { echo "https_check: the receiver did not start" >&2; exit 1; }
}
start_receiver
scenario=Scenarios/family-stop-sharing.yaml

# Tests/Check/backend.py over HTTPS (with any further options); sets $tls_port and $http_port once it listens.
start_backend() {
  rm -f "$work/backend"
  python3 Tests/Check/backend.py --tls-cert "$work/server.pem" --tls-key "$work/server.key" "$@" > "$work/backend" &
  backend=$!
  for _ in $(seq 100); do [ "$(wc -l < "$work/backend" 2> /dev/null || echo 0)" -ge 2 ] && break; sleep 0.1; done
  tls_port="$(sed -n 's/^listening on \([0-9]*\) (https)$/\1/p' "$work/backend")"
  http_port="$(sed -n 's/^listening on \([0-9]*\) (http)$/\1/p' "$work/backend")"
  [ -n "$tls_port" ] && [ -n "$http_port" ] || { echo "https_check: backend.py $* did not start" >&2; exit 1; }
}
stop_backend() {
  kill "$backend" 2> /dev/null || true
  wait "$backend" 2> /dev/null || true
  backend=""
}
# simctl check against the running backend: notifications over https, entitlement queries over http; sets $status.
check_backend() {
  status=0
  "$simctl" check Tests/Check/header.yaml --deliver "https://127.0.0.1:$tls_port/" \
    --entitlements "http://127.0.0.1:$http_port/entitlements/{originalTransactionId}" --deliver-timeout 1m \
    --out "$work/check-$1" "${@:2}" > "$work/check-$1.txt" 2> "$work/check-$1.err" || status=$?
}

# 2. Not trusted yet: TLS_ISSUE, exit 2, nothing received.
status=0
"$simctl" run "$scenario" --deliver "https://127.0.0.1:$port/asn" --deliver-mode sandbox --deliver-timeout 1m \
  --delivery-log "$work/untrusted.jsonl" > /dev/null 2> "$work/untrusted.err" || status=$?
[ "$status" = 2 ] || { echo "https_check: untrusted CA: exit $status, expected 2" >&2; cat "$work/untrusted.err" >&2; exit 1; }
if grep -v '"sendAttemptResult":"TLS_ISSUE"' "$work/untrusted.jsonl" > /dev/null; then
  echo "https_check: untrusted CA: an attempt other than TLS_ISSUE:" >&2
  grep -v '"sendAttemptResult":"TLS_ISSUE"' "$work/untrusted.jsonl" >&2
  exit 1
fi
[ ! -s "$work/bodies" ] || { echo "https_check: untrusted CA: the receiver got a body" >&2; exit 1; }
echo "untrusted CA: $(wc -l < "$work/untrusted.jsonl") attempts, all TLS_ISSUE, exit 2"
start_backend
check_backend untrusted --cases 1
stop_backend
[ "$status" = 2 ] || { echo "https_check: check, untrusted CA: exit $status, expected 2" >&2; cat "$work/check-untrusted.txt" "$work/check-untrusted.err" >&2; exit 1; }
echo "untrusted CA: simctl check cannot judge the backend, exit 2: $(head -1 "$work/check-untrusted.txt")"

# 3. docs/delivery.md's block, as documented, with this check's names: trust, deliver, remove.
awk '/^```shell$/{block=""; on=1; next} on && /^```$/{on=0; if (block ~ /^# Trust a test CA/) print block; next}
     on{block = block $0 "\n"}' docs/delivery.md > "$work/doc_block.sh"
grep -q update-ca-certificates "$work/doc_block.sh" || { echo "https_check: no trust block in docs/delivery.md" >&2; exit 1; }
sed -e "s#test-ca\.pem#$work/ca.pem#g" -e "s#test-ca\.crt#$ca_file#g" -e "s#127\.0\.0\.1:8443#127.0.0.1:$port#g" \
  -e "s#delivery\.jsonl#$work/doc-delivery.jsonl#g" -e "s#^simctl #\"$simctl\" #" "$work/doc_block.sh" > "$work/doc_run.sh"
(set -e; . "$work/doc_run.sh") > "$work/doc.out" 2>&1 || { cat "$work/doc.out" >&2; exit 1; }
[ ! -e "$store/$ca_file" ] && [ ! -e "/etc/ssl/certs/${ca_file%.crt}.pem" ] \
  || { echo "https_check: the documented block left the CA in the store" >&2; exit 1; }
expected="$("$simctl" run "$scenario" --format jsonl)"
[ "$(cat "$work/bodies")" = "$expected" ] || { echo "https_check: the documented delivery's bodies differ" >&2; exit 1; }
if grep -v '"sendAttemptResult":"SUCCESS"' "$work/doc-delivery.jsonl" > /dev/null; then
  echo "https_check: the documented delivery has an attempt other than SUCCESS" >&2
  exit 1
fi
echo "docs/delivery.md's trust block: $(wc -l < "$work/doc-delivery.jsonl") attempts, all SUCCESS, bodies identical"

# 4. Trusted: every scenario, byte for byte.
cp "$work/ca.pem" "$store/$ca_file"
update-ca-certificates > /dev/null 2>&1
count=0
for scenario in Scenarios/*.yaml; do
  : > "$work/bodies"
  "$simctl" run "$scenario" --format jsonl --deliver "https://127.0.0.1:$port/asn" --deliver-timeout 1m \
    > "$work/stdout.jsonl" \
    2> "$work/stderr" || { echo "https_check: $scenario: exit $?" >&2; cat "$work/stderr" >&2; exit 1; }
  "$simctl" run "$scenario" --format jsonl > "$work/expected.jsonl"
  cmp -s "$work/bodies" "$work/expected.jsonl" || { echo "https_check: $scenario: bodies differ" >&2; exit 1; }
  cmp -s "$work/stdout.jsonl" "$work/expected.jsonl" || { echo "https_check: $scenario: stdout differs" >&2; exit 1; }
  count=$((count + 1))
done
: > "$work/bodies"
"$simctl" run "$scenario" --deliver "https://127.0.0.1:$port/asn" --deliver-connections 4 --deliver-timeout 1m \
  > /dev/null 2> "$work/stderr"
[ "$(sort "$work/bodies")" = "$(sort "$work/expected.jsonl")" ] \
  || { echo "https_check: --deliver-connections 4: bodies differ" >&2; exit 1; }
echo "trusted CA: $count scenarios delivered over https, bodies byte-identical to --format jsonl" \
  "(and with --deliver-connections 4)"

# 5. Trusted: simctl check over https. The entitlement queries cannot be https:// (simctl's own HTTP client, no TLS).
status=0
"$simctl" check Tests/Check/header.yaml --deliver "https://127.0.0.1:$port/asn" \
  --entitlements "https://127.0.0.1:$port/entitlements/{originalTransactionId}" > /dev/null 2> "$work/refused.err" \
  || status=$?
{ [ "$status" = 64 ] && grep -q "https is not supported" "$work/refused.err"; } \
  || { echo "https_check: --entitlements https://: exit $status, expected 64" >&2; cat "$work/refused.err" >&2; exit 1; }
start_backend
check_backend correct --cases "$check_cases"
stop_backend
if [ "$status" != 0 ]; then
  cat "$work/check-correct.txt" "$work/check-correct.err" >&2
  echo "https_check: simctl check over https, the correct backend: exit $status, expected 0" >&2
  exit 1
fi
grep -q "^check: every case agrees with the store: $check_cases cases, [1-9][0-9]* notifications" \
  "$work/check-correct.txt" || { echo "https_check: unexpected report:" >&2; cat "$work/check-correct.txt" >&2; exit 1; }
echo "trusted CA: simctl check over https, correct backend: $(head -1 "$work/check-correct.txt"), exit 0"
start_backend --bug fail-ends-access
check_backend bug --cases "$check_cases"
stop_backend
if [ "$status" != 1 ] || [ ! -s "$work/check-bug/counterexample.yaml" ]; then
  cat "$work/check-bug.txt" "$work/check-bug.err" >&2
  echo "https_check: simctl check over https, --bug fail-ends-access: exit $status, expected 1 and a counterexample" >&2
  exit 1
fi
echo "trusted CA: simctl check over https, --bug fail-ends-access: $(head -1 "$work/check-bug.txt"), exit 1"

# 6. SIGTERM during a held HTTPS attempt: cut short, logged, exit 143 within the bound.
kill "$receiver" 2> /dev/null || true
wait "$receiver" 2> /dev/null || true
: > "$work/bodies"
HOLD_SECONDS=20 python3 Tests/Delivery/https_receiver.py "$work/server.pem" "$work/server.key" "$work/bodies" \
  > "$work/port" &
receiver=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port="$(head -1 "$work/port")"
"$simctl" run Scenarios/family-stop-sharing.yaml --deliver "https://127.0.0.1:$port/asn" --deliver-timeout 30s \
  --delivery-log "$work/cut.jsonl" > /dev/null 2> "$work/cut.err" &
run=$!
for _ in $(seq 300); do [ -s "$work/bodies" ] && break; sleep 0.1; done
[ -s "$work/bodies" ] || { echo "https_check: the slow receiver got nothing" >&2; kill "$run"; exit 1; }
started=$(date +%s%N)
kill -TERM "$run"
status=0
wait "$run" || status=$?
took_ms=$(( ($(date +%s%N) - started) / 1000000 ))
if [ "$status" != 143 ] || [ "$took_ms" -ge 6000 ] || ! grep -q '"cutShort":true' "$work/cut.jsonl" \
  || ! grep -q "delivery cut short: simctl was stopped (SIGTERM)" "$work/cut.err"; then
  echo "https_check: SIGTERM during an https delivery: exit $status after $took_ms ms" >&2
  cat "$work/cut.err" "$work/cut.jsonl" >&2
  exit 1
fi
echo "SIGTERM during a held https attempt: exit 143 after $took_ms ms, the attempt logged as cut short:" \
  "$(grep -c . "$work/cut.jsonl") line(s) in the delivery log"
