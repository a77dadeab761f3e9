#!/usr/bin/env bash
# Installs headless Chromium (Debian's `chromium` package) for the picture checks (Tests/Render/check.sh) and the
# docs PNG (Tests/Render/render_png.sh). Idempotent: does nothing when a chromium is already on PATH. apt-get needs
# root (CI runs as root); without root or apt-get it says so and fails.
set -euo pipefail

if command -v chromium > /dev/null 2>&1; then
  echo "chromium already installed: $(chromium --version 2>/dev/null || echo unknown version)"
  exit 0
fi
if ! command -v apt-get > /dev/null 2>&1; then
  echo "Tests/Render/setup.sh: apt-get not found; install Chromium yourself (a 'chromium' on PATH)" >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo "Tests/Render/setup.sh: installing Debian's chromium needs root (run it as root, as CI does)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core > /dev/null
echo "installed $(chromium --version)"
