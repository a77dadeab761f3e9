#!/usr/bin/env bash
# Loads each docs picture (docs/*.svg) and the `svg` format of two scenarios and a year of a family of six (Tests/Render/family-of-six-year.yaml) in headless Chromium: no XML error,
# every lane name and marker title in the DOM, a screenshot that is not blank, and no two texts overlapping or
# leaving the canvas as Chromium lays them out (getBBox; Tests/Render/render.py). Also the five pictures of
# docs/pictures.md, one with offsets on the axis and a window, and the overview of a 2,000-customer run.
# Usage: Tests/Render/check.sh [SIMCTL]   (needs Tests/Render/setup.sh first)
set -euo pipefail
cd "$(dirname "$0")/../.."
simctl="${1:-.build/debug/simctl}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$simctl" run Scenarios/family-billing-grace-recovery.yaml --format svg > "$out/family-billing-grace-recovery.svg"
"$simctl" run Scenarios/offers.yaml --format svg > "$out/offers.svg"
"$simctl" run Tests/Render/family-of-six-year.yaml --format svg > "$out/family-of-six-year.svg"
for name in commitment-crossgrade-between-plans family-plan-change-shareable family-share-held-during-billing-retry \
  auto-renew-off-and-on-prorated-refund weekly-grace-capped; do
  "$simctl" run "Scenarios/$name.yaml" --format svg > "$out/$name.svg"
done
"$simctl" run Scenarios/family-member-leaves.yaml --format svg --axis offsets --from 1h --to P2M \
  > "$out/family-member-leaves-offsets.svg"
python3 Tests/Scale/generate_scenario.py 2000 > "$out/scale-2000.yaml"
"$simctl" run "$out/scale-2000.yaml" --format svg > "$out/scale-2000.svg"
python3 Tests/Render/render.py check docs/*.svg "$out"/*.svg
