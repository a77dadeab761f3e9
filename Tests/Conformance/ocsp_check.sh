#!/usr/bin/env bash
# Online certificate checks (docs/signing.md, "Online certificate checks (OCSP)"): the opt-in chain of
# `simctl certs export --ocsp-url URL`, the responder `simctl certs ocsp`, Python cryptography's x509.ocsp (and
# `openssl ocsp` when installed) against it, and Apple's SignedDataVerifier with enable_online_checks=True in Sandbox
# and Production, before and after a revocation (Tests/Conformance/ocsp_check.py).
# Usage: Tests/Conformance/ocsp_check.sh [SIMCTL] [SCENARIO]   (default .build/debug/simctl, cancel-during-grace)
set -euo pipefail
cd "$(dirname "$0")/../.."
simctl="${1:-.build/debug/simctl}"
bash Tests/Conformance/setup.sh
timeout 600 Tests/Conformance/.venv/bin/python Tests/Conformance/ocsp_check.py "$simctl" \
  "${2:-Scenarios/cancel-during-grace.yaml}"
