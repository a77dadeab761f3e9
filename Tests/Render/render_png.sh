#!/usr/bin/env bash
# Draws docs/family-stop-sharing.svg (the family example's picture, `simctl run --format svg`) and renders it to
# docs/family-stop-sharing.png with headless Chromium, as docs/family-sharing.md shows it.
# Usage: Tests/Render/render_png.sh [SIMCTL]   (needs Tests/Render/setup.sh first)
set -euo pipefail
cd "$(dirname "$0")/../.."
simctl="${1:-.build/debug/simctl}"
"$simctl" run Scenarios/family-stop-sharing.yaml --format svg > docs/family-stop-sharing.svg
python3 Tests/Render/render.py png docs/family-stop-sharing.svg docs/family-stop-sharing.png
