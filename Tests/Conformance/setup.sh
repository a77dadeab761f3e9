#!/usr/bin/env bash
# Creates Tests/Conformance/.venv with Apple's official App Store Server Library (pinned in requirements.txt).
# Idempotent: does nothing when the environment already matches requirements.txt.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
echo "$want" > "$stamp"
echo "conformance: installed $("$venv/bin/pip" show app-store-server-library | grep -i '^version' )"
