#!/usr/bin/env bash
# Signing speed beside OpenSSL on the same machine (issue 27): medians over RUNS runs, one process each.
#
#   swift build -c release --product simctl && swift build -c release --product simbench
#   Tests/Scale/signing_speed.sh                       # 10,000 customers, 5 runs
#   Tests/Scale/signing_speed.sh 10000 5 /work/signing-before/simctl   # N, runs, a "before" binary to compare
#
# Prints, each a median of RUNS runs (the N-customer scale scenario of generate_scenario.py, jsonl to /dev/null):
# - the wall time of a signed (--environment Sandbox) and an unsigned (LocalTesting) run, and ES256 signatures/s as
#   3 signatures per notification / (signed wall - unsigned wall), beside `openssl speed -seconds 5 ecdsap256`;
# - SHA-256 MB/s on 16 KB messages from `simbench signing` (CPU time), beside
#   `openssl speed -bytes 16384 -seconds 5 sha256` (which divides by CPU time too);
# - with a BEFORE binary: its signed wall and the speed-up of the signed run.
# The same figures from user CPU time (both of simctl's threads) follow each wall figure: on a busy machine they move
# less than wall time, and `openssl speed` divides by CPU time too.
# `--jobs 1` is passed when `simctl help run` lists --jobs. Timings on the shared 2-core machine move by 20% or more:
# compare figures of one invocation, and quote the load average printed at the end.
set -euo pipefail
customers=${1:-10000}
runs=${2:-5}
before=${3:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
simctl="$root/.build/release/simctl"
simbench="$root/.build/release/simbench"
for binary in "$simctl" ${before:+"$before"}; do
    if [ ! -x "$binary" ]; then
        echo "$binary is missing: swift build -c release --product simctl" >&2
        exit 66
    fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$root/Tests/Scale/generate_scenario.py" "$customers" > "$work/scale.yaml"
jobs=()
if "$simctl" help run 2>&1 | grep -q -- '--jobs'; then jobs=(--jobs 1); fi
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# wall BINARY ARGUMENTS...: one run's wall-clock and user CPU seconds, output to /dev/null.
wall() {
    local binary=$1
    shift
    /usr/bin/time -f "%e %U" -o "$work/time" "$binary" run "$work/scale.yaml" --format jsonl "$@" > /dev/null
    cat "$work/time"
}
# column FILE N: column N of a file of runs.
column() { awk -v n="$2" '{ print $n }' "$1"; }
notifications=$("$simctl" run "$work/scale.yaml" --format jsonl --environment LocalTesting "${jobs[@]}" | wc -l)
: > "$work/signed"
: > "$work/unsigned"
: > "$work/before"
for _ in $(seq "$runs"); do
    wall "$simctl" --environment Sandbox "${jobs[@]}" >> "$work/signed"
    wall "$simctl" --environment LocalTesting "${jobs[@]}" >> "$work/unsigned"
    if [ -n "$before" ]; then wall "$before" --environment Sandbox >> "$work/before"; fi
done
signed=$(column "$work/signed" 1 | median)
unsigned=$(column "$work/unsigned" 1 | median)
signed_cpu=$(column "$work/signed" 2 | median)
unsigned_cpu=$(column "$work/unsigned" 2 | median)
rate=$(awk -v n="$notifications" -v s="$signed" -v u="$unsigned" 'BEGIN { printf "%.0f", 3 * n / (s - u) }')
rate_cpu=$(awk -v n="$notifications" -v s="$signed_cpu" -v u="$unsigned_cpu" 'BEGIN { printf "%.0f", 3 * n / (s - u) }')
openssl_sign=$(openssl speed -seconds 5 ecdsap256 2>/dev/null | awk '/nistp256/ && /bits/ { print $(NF - 1) }')
openssl_sha=$(openssl speed -bytes 16384 -seconds 5 sha256 2>/dev/null | awk '/^sha256/ { sub("k", "", $2); print $2 / 1000 }')
echo "N=$customers runs=$runs ${jobs[*]}: $notifications notifications"
echo "  signed (Sandbox) run: median $signed s wall, $signed_cpu s user CPU (runs: $(column "$work/signed" 1 | tr '\n' ' '))"
echo "  unsigned (LocalTesting) run: median $unsigned s wall, $unsigned_cpu s user CPU" \
    "(runs: $(column "$work/unsigned" 1 | tr '\n' ' '))"
echo "  ES256: $rate signatures/s; openssl speed -seconds 5 ecdsap256: $openssl_sign sign/s;" \
    "ratio $(awk -v a="$rate" -v b="$openssl_sign" 'BEGIN { printf "%.2f", a / b }');" \
    "from user CPU time: $rate_cpu signatures/s, ratio $(awk -v a="$rate_cpu" -v b="$openssl_sign" \
        'BEGIN { printf "%.2f", a / b }')"
if [ -x "$simbench" ]; then
    sha=$("$simbench" signing | awk '/SHA-256 on 16 KB messages/ { print $(NF - 4) }' | tr -d ,)
    echo "  SHA-256, 16 KB messages: $sha MB/s (simbench signing, CPU time); openssl speed -bytes 16384 -seconds 5" \
        "sha256: $openssl_sha MB/s; ratio $(awk -v a="$sha" -v b="$openssl_sha" 'BEGIN { printf "%.2f", a / b }')"
else
    echo "  (no $simbench: swift build -c release --product simbench for the SHA-256 figure)"
fi
if [ -n "$before" ]; then
    old=$(column "$work/before" 1 | median)
    old_cpu=$(column "$work/before" 2 | median)
    echo "  before ($before): signed run median $old s wall, $old_cpu s user CPU" \
        "(runs: $(column "$work/before" 1 | tr '\n' ' ')); speed-up" \
        "$(awk -v a="$old" -v b="$signed" 'BEGIN { printf "%.2f", a / b }')x wall," \
        "$(awk -v a="$old_cpu" -v b="$signed_cpu" 'BEGIN { printf "%.2f", a / b }')x user CPU"
fi
echo "  load average $(cut -d' ' -f1-3 /proc/loadavg)"
