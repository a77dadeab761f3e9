#!/usr/bin/env bash
# Peak memory of `simctl run --deliver` on the generated scale scenario (docs/delivery.md, "Streaming"): delivers
# every notification of an N-customer year to a fast local receiver (Tests/Scale/fast_receiver.py) and prints the
# wall-clock time, the peak memory (maximum resident set size, /usr/bin/time's counter) and what the receiver got.
# Exits 1 when the peak is at or over LIMIT_MB (default 1024), or when not every notification was delivered.
#
#   swift build -c release --product simctl
#   Tests/Scale/deliver_memory.sh 100000                      # N customers
#   Tests/Scale/deliver_memory.sh 10000 --deliver-connections 4   # extra arguments go to simctl run
#   PURCHASES=coincident Tests/Scale/deliver_memory.sh 100000     # every customer buys at the start
set -euo pipefail
if [ $# -lt 1 ]; then
    echo "usage: $0 N [simctl run arguments...]" >&2
    exit 64
fi
customers=$1
shift
limit=${LIMIT_MB:-1024}
root=$(cd "$(dirname "$0")/../.." && pwd)
simctl=${SIMCTL:-"$root/.build/release/simctl"}
if [ ! -x "$simctl" ]; then
    echo "$simctl is missing: swift build -c release --product simctl" >&2
    exit 66
fi
work=$(mktemp -d)
receiver=
cleanup() {
    if [ -n "$receiver" ]; then kill -KILL "$receiver" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
python3 "$root/Tests/Scale/generate_scenario.py" "$customers" --purchases "${PURCHASES:-spread}" > "$work/scale.yaml"
PORT=0 python3 "$root/Tests/Scale/fast_receiver.py" > "$work/receiver.out" &
receiver=$!
disown
for _ in $(seq 100); do
    grep -q '^port ' "$work/receiver.out" 2>/dev/null && break
    sleep 0.1
done
port=$(awk '/^port / { print $2 }' "$work/receiver.out")
# The receiver's own process id (a launcher such as pyenv's shim may stand between $! and it).
pid=$(awk '/^port / { print $4 }' "$work/receiver.out")
if [ -z "$port" ] || [ -z "$pid" ]; then
    echo "the receiver did not start" >&2
    exit 69
fi
receiver=$pid
status=0
/usr/bin/time -f "%e %M" -o "$work/time" "$simctl" run "$work/scale.yaml" --deliver "http://127.0.0.1:$port/asn" \
    "$@" > /dev/null 2> "$work/stderr" || status=$?
kill "$receiver"
for _ in $(seq 100); do
    grep -q '^received ' "$work/receiver.out" && break
    sleep 0.1
done
for _ in $(seq 50); do
    kill -0 "$receiver" 2>/dev/null || break
    sleep 0.1
done
kill -KILL "$receiver" 2>/dev/null || true
receiver=
read -r wall rss < "$work/time"
summary=$(grep '^delivery to ' "$work/stderr" || true)
echo "N=$customers${*:+ $*}: ${wall} s wall, peak RSS $((rss / 1024)) MB (limit $limit MB), exit $status;" \
    "$(tail -n 1 "$work/receiver.out"); purchases ${PURCHASES:-spread}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$summary"
if [ "$status" -ne 0 ]; then
    cat "$work/stderr" >&2
    exit 1
fi
if [ $((rss / 1024)) -ge "$limit" ]; then
    echo "peak memory $((rss / 1024)) MB is over the limit of $limit MB" >&2
    exit 1
fi
