#!/usr/bin/env bash
# What the machine itself allows two of issue 27's targets (docs/streaming.md, "What the machine allows"), measured
# beside simctl so that a figure can be read against its bound on the machine that produced it.
#
#   swift build -c release --product simctl
#   Tests/Scale/machine_bounds.sh parts 100000 5    # the most a split into two parts can gain here (jsonl, --jobs 2)
#   Tests/Scale/machine_bounds.sh write 3980 3      # what writing 3,980 MiB (about 4.17 GB) into a file costs
#
# parts N ROUNDS: each round times `simctl run --jobs 1` of N customers who all buy at the start (jsonl to
# /dev/null), then two `--jobs 1` runs of N/2 such customers at the same time (two independent processes: two parts
# with nothing shared and no merge, so no split into two parts can do better), then `--jobs 2` of the N. It prints
# each round's wall times and the medians of two ratios: one job against the two halves at once (the machine's
# bound for `--jobs 2`), and one job against `--jobs 2`.
#
# write MB ROUNDS: `dd` writes MB MiB of zeros, 1 MiB per write, into a new file (what `simctl run > FILE` asks of
# the kernel), into the same file's pages while they are still cached (an overwrite), and with O_DIRECT (no page
# cache); it prints each one's wall time and system CPU time. The file is under TMPDIR (default /tmp; set it to a
# folder on the file system simctl's output would go to, since /tmp may be a tmpfs) and removed.
set -euo pipefail
usage() {
    echo "usage: $0 parts N ROUNDS | write MB ROUNDS" >&2
    exit 64
}
[ $# -eq 3 ] || usage
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
case $1 in
    parts)
        customers=$2
        rounds=$3
        simctl="$root/.build/release/simctl"
        if [ ! -x "$simctl" ]; then
            echo "$simctl is missing: swift build -c release --product simctl" >&2
            exit 66
        fi
        python3 "$root/Tests/Scale/generate_scenario.py" "$customers" --purchases coincident > "$work/all.yaml"
        python3 "$root/Tests/Scale/generate_scenario.py" $((customers / 2)) --purchases coincident > "$work/half.yaml"
        seconds() { date +%s.%N; }
        for round in $(seq "$rounds"); do
            start=$(seconds)
            "$simctl" run "$work/all.yaml" --format jsonl --jobs 1 > /dev/null
            middle=$(seconds)
            "$simctl" run "$work/half.yaml" --format jsonl --jobs 1 > /dev/null &
            first=$!
            "$simctl" run "$work/half.yaml" --format jsonl --jobs 1 > /dev/null &
            second=$!
            wait "$first"
            wait "$second"
            halves=$(seconds)
            "$simctl" run "$work/all.yaml" --format jsonl --jobs 2 > /dev/null
            end=$(seconds)
            echo "$start $middle $halves $end" | awk -v round="$round" '{
                one = $2 - $1; halves = $3 - $2; two = $4 - $3
                printf "round %d: --jobs 1 %.2f s, two halves at once %.2f s, --jobs 2 %.2f s\n", round, one, halves, two
                printf "%.3f %.3f\n", one / halves, one / two > "/dev/stderr"
            }' 2>> "$work/ratios"
        done
        bound=$(awk '{ print $1 }' "$work/ratios" | median)
        jobs=$(awk '{ print $2 }' "$work/ratios" | median)
        echo "N=$customers coincident, jsonl to /dev/null, $rounds rounds: one job / two halves at once ${bound}x" \
            "(the bound), one job / --jobs 2 ${jobs}x (medians of the rounds' ratios);" \
            "load average $(cut -d' ' -f1-3 /proc/loadavg)"
        ;;
    write)
        megabytes=$2
        rounds=$3
        file="${TMPDIR:-/tmp}/simctl-machine-bounds.$$"
        trap 'rm -rf "$work" "$file"' EXIT
        timed() {  # timed LABEL dd-arguments...: one dd, its "wall system" appended to LABEL's list
            local label=$1
            shift
            /usr/bin/time -f "%e %S" -o "$work/time" dd if=/dev/zero of="$file" bs=1M count="$megabytes" status=none "$@"
            cat "$work/time" >> "$work/$label"
        }
        for _ in $(seq "$rounds"); do
            rm -f "$file"
            timed new
            timed overwrite conv=notrunc
            rm -f "$file"
            timed direct oflag=direct
            rm -f "$file"
        done
        for label in new overwrite direct; do
            wall=$(awk '{ print $1 }' "$work/$label" | median)
            system=$(awk '{ print $2 }' "$work/$label" | median)
            echo "$megabytes MiB by dd, $label file: median $wall s wall, $system s system CPU" \
                "(walls: $(awk '{ print $1 }' "$work/$label" | paste -sd' '))"
        done
        echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
        ;;
    *) usage ;;
esac
