#!/usr/bin/env bash
# Issue 45: every kind `simctl trigger --list` names, signed for Sandbox and for Production, verifies with Apple's
# App Store Server Library (SignedDataVerifier with the root of `simctl certs export`, the environment, the bundle id
# and, in Production, the app Apple id), nested JWS included; and each kind's `--tamper` body is refused.
# Usage: Tests/Conformance/verify_trigger.sh [SIMCTL]   (default .build/debug/simctl; needs Tests/Conformance/setup.sh)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
simctl="${1:-$here/../../.build/debug/simctl}"
python="$here/.venv/bin/python"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$simctl" certs export "$work/ca" > /dev/null
kinds=$("$simctl" trigger --list | cut -d' ' -f1)
for environment in Sandbox Production; do
  : > "$work/$environment.jsonl"
  : > "$work/$environment-tampered.jsonl"
  for kind in $kinds; do
    "$simctl" trigger "$kind" --environment "$environment" --bundle-id com.example.mine --app-apple-id 42 \
      >> "$work/$environment.jsonl"
    "$simctl" trigger "$kind" --environment "$environment" --bundle-id com.example.mine --app-apple-id 42 --tamper \
      >> "$work/$environment-tampered.jsonl"
  done
  test "$(wc -l < "$work/$environment.jsonl")" -eq "$(echo "$kinds" | wc -l)"
  "$python" "$here/verify_signatures.py" notifications "$work/ca/root.der" "$environment" com.example.mine 42 \
    "$work/$environment.jsonl"
  # Every tampered body is refused (verify_signatures.py exits 1 and reports each one).
  if "$python" "$here/verify_signatures.py" notifications "$work/ca/root.der" "$environment" com.example.mine 42 \
    "$work/$environment-tampered.jsonl" > "$work/tampered.out"; then
    echo "trigger --tamper: Apple's library accepted a tampered notification ($environment)"; exit 1
  fi
  refused=$(grep -c "rejected: VERIFICATION_FAILURE" "$work/tampered.out" || true)
  test "$refused" -eq "$(echo "$kinds" | wc -l)" || { cat "$work/tampered.out"; exit 1; }
  echo "trigger: $environment: $(echo "$kinds" | wc -l) kinds verified, $refused tampered refused"
done
