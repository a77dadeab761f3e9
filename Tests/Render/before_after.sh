#!/usr/bin/env bash
# The before/after pictures of docs/pictures.md: five scenarios drawn by a simctl (`--format svg`) and rendered to PNG
# by headless Chromium (Tests/Render/render.py png) into docs/pictures/SIDE/NAME.png.
# Usage: Tests/Render/before_after.sh after [SIMCTL]    (this tree's picture; default .build/debug/simctl)
#        Tests/Render/before_after.sh before SIMCTL     (a simctl built from the code before issue 49, e.g. main at
#                                                        9c072ae: git worktree add /tmp/before 9c072ae && cd /tmp/before
#                                                        && swift build)
# Needs Tests/Render/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/../.."
side="${1:?usage: before_after.sh before|after [SIMCTL]}"
case "$side" in before|after) ;; *) echo "before_after.sh: the first argument is before or after, found '$side'" >&2; exit 64 ;; esac
simctl="${2:-.build/debug/simctl}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "docs/pictures/$side"
for name in commitment-crossgrade-between-plans family-plan-change-shareable family-share-held-during-billing-retry \
  auto-renew-off-and-on-prorated-refund weekly-grace-capped; do
  "$simctl" run "Scenarios/$name.yaml" --format svg > "$scratch/$name.svg"
  python3 Tests/Render/render.py png "$scratch/$name.svg" "docs/pictures/$side/$name.png"
done
