#!/usr/bin/env bash
# Times `simctl run` on the generated scale scenario (docs/streaming.md): medians of wall-clock and user CPU time
# and of peak memory (maximum resident set size, from /usr/bin/time -v's counter) over RUNS runs. User CPU time
# adds up both threads (simctl run writes its output on a second thread), so it can exceed the wall-clock time.
#
#   swift build -c release --product simctl
#   Tests/Scale/measure.sh 100000 jsonl 3                 # N customers, format, runs
#   Tests/Scale/measure.sh 100000 jsonl 3 --environment Sandbox   # extra arguments go to simctl run
#   PURCHASES=coincident Tests/Scale/measure.sh 100000 jsonl 3    # every customer buys at the start (issue 27)
#   TO=file Tests/Scale/measure.sh 100000 jsonl 3                 # output to a file in a temporary folder
#   JOBS="1 2" PURCHASES=coincident Tests/Scale/measure.sh 100000 jsonl 3   # each --jobs count in turn (issue 27)
#
# JOBS: a list of `simctl run --jobs` counts; each is measured in turn (same scenario) and the SHA-256 of each
# count's output is compared with the first one's: the script fails unless they are byte-identical.
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
measure() {  # measure LABEL [simctl run arguments...]: one untimed run (lines, hash), then RUNS timed runs
    local label=$1
    shift
    rm -f "$work/all"
    # One untimed run counts the output lines, hashes the output (and warms the file cache); the timed runs write
    # to /dev/null (or to a file), so the figures are simctl's own and not those of whatever reads its output.
    "$simctl" run "$work/scale.yaml" --format "$format" "$@" | tee >(wc -l > "$work/lines") | sha256sum \
        | cut -d' ' -f1 > "$work/hash"
    sleep 0.2  # the line count's process substitution ends after tee
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %U %M" -o "$work/time" "$simctl" run "$work/scale.yaml" --format "$format" "$@" \
            > "$target"
        rm -f "$work/out"
        cat "$work/time" >> "$work/all"
    done
    median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
    wall=$(awk '{ print $1 }' "$work/all" | median)
    user=$(awk '{ print $2 }' "$work/all" | median)
    rss=$(awk '{ print $3 }' "$work/all" | median)
    echo "N=$customers purchases=$purchases format=$format to=${TO:-null} runs=$runs $label: median ${wall} s wall," \
        "${user} s user CPU, peak RSS $((rss / 1024)) MB, $(cat "$work/lines") output lines, sha256 $(cat "$work/hash");" \
        "load average $(cut -d' ' -f1-3 /proc/loadavg)"
}
if [ -z "${JOBS:-}" ]; then
    measure "$*" "$@"
else
    first=""
    for jobs in $JOBS; do
        measure "--jobs $jobs $*" "$@" --jobs "$jobs"
        if [ -z "$first" ]; then
            first=$(cat "$work/hash")
        elif [ "$(cat "$work/hash")" != "$first" ]; then
            echo "--jobs $jobs wrote different bytes from --jobs ${JOBS%% *}" >&2
            exit 1
        fi
    done
    echo "every --jobs count wrote the same bytes (sha256 $first)"
fi
