#!/usr/bin/env bash
# Speed of `simctl population` beside the SimPy implementation of the same model (cohort-v1), on this machine.
#
#   Tests/Population/compare.sh [SUBSCRIBERS] [RUNS]      (defaults: 100000 subscribers, 3 runs each)
#
# Both run the standard configuration of the model's section 9 (12 months, churn 0.05, billing failure 0.05,
# grace 16, seed 1), one run at a time; each prints its events and wall seconds (R7.7: creating the N subscribers
# and running them, not the interpreter start or the output). The script prints the median events/s of each and
# the ratio. It creates Tests/Population/.venv with SimPy (requirements.txt) and builds simctl in release mode (or uses
# the binary named by SIMCTL, e.g. SIMCTL=.build/release/simctl, as built).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
subscribers="${1:-100000}"
runs="${2:-3}"
venv="$here/.venv"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if ! { [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; }; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
  echo "$want" > "$stamp"
fi
if [ -z "${SIMCTL:-}" ]; then
  (cd "$root" && swift build -c release --product simctl >/dev/null)
fi
simctl="${SIMCTL:-$root/.build/release/simctl}"
options=(--subscribers "$subscribers" --months 12 --churn 0.05 --billing-failure 0.05 --grace 16 --seed 1 --json)

# Prints "events wall_s" from one JSON result on standard input.
fields() { "$venv/bin/python" -c 'import json,sys; r=json.load(sys.stdin); print(r["events"], r["wall_s"])'; }

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

measure() {
  local name="$1"; shift
  local rates=() walls=() events=""
  for _ in $(seq "$runs"); do
    read -r events wall < <("$@" "${options[@]}" | fields)
    walls+=("$wall")
    rates+=("$("$venv/bin/python" -c "print($events / $wall)")")
  done
  local rate wall
  rate="$(printf '%s\n' "${rates[@]}" | median)"
  wall="$(printf '%s\n' "${walls[@]}" | median)"
  printf '%-8s events %s, wall_s median %s, events/s median %.0f\n' "$name" "$events" "$wall" "$rate" >&2
  echo "$rate"
}

echo "cohort-v1, N = $subscribers, 12 months, churn 0.05, billing failure 0.05, grace 16, seed 1; median of $runs runs" >&2
simpy_rate="$(measure simpy "$venv/bin/python" "$here/simpy_model.py")"
swift_rate="$(measure simctl "$simctl" population)"
"$venv/bin/python" -c "print('ratio: simctl runs %.1f times the events per second of SimPy' % ($swift_rate / $simpy_rate))"
