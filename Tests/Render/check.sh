#!/usr/bin/env bash
# Loads each docs picture (docs/*.svg) and the `svg` format of two scenarios and a year of a family of six (Tests/Render/family-of-six-year.yaml) in headless Chromium: no XML error,
# every lane name and marker title in the DOM, a screenshot that is not blank (Tests/Render/render.py).
# Usage: Tests/Render/check.sh [SIMCTL]   (needs Tests/Render/setup.sh first)
set -euo pipefail
cd "$(dirname "$0")/../.."
simctl="${1:-.build/debug/simctl}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$simctl" run Scenarios/family-billing-grace-recovery.yaml --format svg > "$out/family-billing-grace-recovery.svg"
"$simctl" run Scenarios/offers.yaml --format svg > "$out/offers.svg"
"$simctl" run Tests/Render/family-of-six-year.yaml --format svg > "$out/family-of-six-year.svg"
python3 Tests/Render/render.py check docs/*.svg "$out"/*.svg
