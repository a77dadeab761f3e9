#!/usr/bin/env bash
# The dashboard in a real headless browser (issue 48; docs/server.md, "The dashboard"):
#   bash Tests/Dashboard/browser_check.sh [SIMCTL] [SCREENSHOT.png]
# SIMCTL: the binary (default .build/debug/simctl, built by `swift build`). SCREENSHOT: where the screenshot goes
# (default: a temporary file; `bash Tests/Dashboard/browser_check.sh .build/debug/simctl docs/images/dashboard.png`
# regenerates the one docs/server.md shows).
# Installs what it needs: Debian's chromium and chromium-driver with apt-get when missing, and selenium from PyPI into
# Tests/Dashboard/.venv (ignored by git). Then Tests/Dashboard/browser_check.py drives the page; see there for what
# it checks.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
simctl="${1:-$root/.build/debug/simctl}"
screenshot="${2:-}"
[ -x "$simctl" ] || { echo "dashboard: no simctl binary at $simctl (run swift build first)" >&2; exit 1; }
packages=(chromium chromium-driver)
if ! dpkg -s "${packages[@]}" > /dev/null 2>&1; then
  echo "dashboard: installing ${packages[*]}" >&2
  { apt-get -o DPkg::Lock::Timeout=600 update > /tmp/apt-dashboard.log 2>&1 \
    && apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${packages[@]}" >> /tmp/apt-dashboard.log 2>&1; } \
    || { cat /tmp/apt-dashboard.log >&2; exit 1; }
fi
venv="$here/.venv"
if ! "$venv/bin/python" -c "import selenium" 2> /dev/null; then
  echo "dashboard: installing selenium into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "selenium>=4.10,<5"
fi
cd "$root"
exec "$venv/bin/python" "$here/browser_check.py" "$simctl" "$screenshot"
