#!/usr/bin/env bash
# Times `simctl run` on the generated scale scenario (docs/streaming.md): medians of wall-clock and user CPU time
# and of peak memory (maximum resident set size, from /usr/bin/time -v's counter) over RUNS runs. User and system CPU
# time add up every thread (--jobs N runs N parts and a merger), so they can exceed the wall-clock time.
#
#   swift build -c release --product simctl
#   Tests/Scale/measure.sh 100000 jsonl 3                 # N customers, format, runs
#   Tests/Scale/measure.sh 100000 jsonl 3 --environment Sandbox   # extra arguments go to simctl run
#   PURCHASES=coincident Tests/Scale/measure.sh 100000 jsonl 3    # every customer buys at the start (issue 27)
#   TO=file Tests/Scale/measure.sh 100000 jsonl 3                 # output to a file in a temporary folder
#   JOBS="1 2" PURCHASES=coincident Tests/Scale/measure.sh 100000 jsonl 3   # each --jobs count in turn (issue 27)
#
# JOBS: a list of `simctl run --jobs` counts, run in interleaved rounds (each count once per round, RUNS rounds, same
# scenario); the SHA-256 of each count's output is compared with the first one's (the script fails unless they are
# byte-identical), and the median over rounds of each count's speed-up on the first count is printed.
#
# PURCHASES: spread (default) or coincident (Tests/Scale/generate_scenario.py --purchases). TO: null (default,
# /dev/null) or file (a real file, removed after each run; under TMPDIR, default /tmp).
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 N timeline|jsonl|decoded [RUNS] [simctl run arguments...]" >&2
    exit 64
fi
customers=$1
format=$2
runs=${3:-3}
shift $(( $# >= 3 ? 3 : 2 ))
root=$(cd "$(dirname "$0")/../.." && pwd)
simctl="$root/.build/release/simctl"
if [ ! -x "$simctl" ]; then
    echo "$simctl is missing: swift build -c release --product simctl" >&2
    exit 66
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
purchases=${PURCHASES:-spread}
python3 "$root/Tests/Scale/generate_scenario.py" "$customers" --purchases "$purchases" > "$work/scale.yaml"
case ${TO:-null} in
    null) target=/dev/null ;;
    file) target="$work/out" ;;
    *) echo "TO must be null or file" >&2; exit 64 ;;
esac
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
untimed() {  # untimed LABEL [simctl run arguments...]: counts the output lines and hashes the output
    local label=$1
    shift
    # The untimed run also warms the file cache; the timed runs write to /dev/null (or to a file), so the figures
    # are simctl's own and not those of whatever reads its output.
    "$simctl" run "$work/scale.yaml" --format "$format" "$@" | tee >(wc -l > "$work/lines") | sha256sum \
        | cut -d' ' -f1 > "$work/hash.$label"
    sleep 0.2  # the line count's process substitution ends after tee
}
timed() {  # timed LABEL [simctl run arguments...]: one timed run, its "wall user system rss" appended to all.LABEL
    local label=$1
    shift
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$simctl" run "$work/scale.yaml" --format "$format" "$@" \
        > "$target"
    rm -f "$work/out"
    cat "$work/time" >> "$work/all.$label"
}
report() {  # report LABEL TEXT: the medians of LABEL's runs
    local all="$work/all.$1"
    wall=$(awk '{ print $1 }' "$all" | median)
    user=$(awk '{ print $2 }' "$all" | median)
    system=$(awk '{ print $3 }' "$all" | median)
    rss=$(awk '{ print $4 }' "$all" | median)
    echo "N=$customers purchases=$purchases format=$format to=${TO:-null} runs=$runs $2: median ${wall} s wall," \
        "${user} s user CPU, ${system} s system CPU, peak RSS $((rss / 1024)) MB, $(cat "$work/lines") output lines," \
        "sha256 $(cat "$work/hash.$1"); load average $(cut -d' ' -f1-3 /proc/loadavg)"
}
if [ -z "${JOBS:-}" ]; then
    untimed one "$@"
    for _ in $(seq "$runs"); do timed one "$@"; done
    report one "$*"
else
    # Each round runs every --jobs count once, in turn, so that a machine whose speed drifts (a shared VM's does, by
    # 20% and more within minutes) slows every count alike; each count's wall time is also divided by the first
    # count's in the same round, and the median of those ratios is printed.
    set -- "$@"
    first=""
    for jobs in $JOBS; do
        untimed "$jobs" "$@" --jobs "$jobs"
        if [ -z "$first" ]; then
            first=$jobs
        elif [ "$(cat "$work/hash.$jobs")" != "$(cat "$work/hash.$first")" ]; then
            echo "--jobs $jobs wrote different bytes from --jobs $first" >&2
            exit 1
        fi
    done
    for _ in $(seq "$runs"); do
        for jobs in $JOBS; do timed "$jobs" "$@" --jobs "$jobs"; done
    done
    for jobs in $JOBS; do
        report "$jobs" "--jobs $jobs $*"
        if [ "$jobs" != "$first" ]; then
            ratio=$(paste -d' ' "$work/all.$first" "$work/all.$jobs" | awk '{ printf "%.3f\n", $1 / $5 }' | median)
            echo "  --jobs $jobs is ${ratio}x as fast as --jobs $first by wall time (median of the $runs rounds' ratios)"
        fi
    done
    echo "every --jobs count wrote the same bytes (sha256 $(cat "$work/hash.$first"))"
fi
