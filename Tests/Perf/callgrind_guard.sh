#!/usr/bin/env bash
# The callgrind guard (docs/reliability.md, "Performance guard"): counts the instructions of a few fixed workloads
# with valgrind's callgrind on release binaries and fails when one rises more than 3% over the committed baseline,
# Tests/Perf/callgrind-baseline.tsv. It builds nothing: BUILD_DIR is the folder of the release binaries, made with
#
#     swift build -c release --static-swift-stdlib -Xcc -gdwarf-4
#
# (`-Xcc -gdwarf-4`: valgrind 3.19 cannot read the DWARF 5 that clang writes for the C targets; README).
#
#     Tests/Perf/callgrind_guard.sh BUILD_DIR             check against the baseline (exit 1 above +3%)
#     Tests/Perf/callgrind_guard.sh BUILD_DIR --update    write the figures measured now into the baseline and
#                                                         print each old and new figure (commit the file's diff)
#     options: --baseline FILE (another baseline file), --threshold PERCENT (default 3), --only NAME[,NAME]
#
# Workloads (each deterministic: --jobs 1, fixed seeds, no delivery):
#   lifecycle        simbench `callgrind` (1,000 one-year lifecycles) minus `callgrind-baseline` (1), over 999
#   run-2000-jsonl   simctl run of Tests/Scale/generate_scenario.py 2000 to jsonl, whole process
#   signed-run       simctl run of Tests/Scale/generate_scenario.py 20 to jsonl signed with --ca-seed (ES256)
#   population       simctl population --subscribers 2000, whole process
# A figure below the baseline passes (say so with --update, so the next rise is measured from there). Exit codes:
# 0 every figure within the threshold, 1 one rose more, 2 usage or a workload that failed, 3 valgrind missing.
set -euo pipefail

usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
BUILD_DIR=$1
shift
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BASELINE=$HERE/callgrind-baseline.tsv
THRESHOLD=3
UPDATE=0
ONLY=""
while [ $# -gt 0 ]; do
    case $1 in
        --update) UPDATE=1 ;;
        --baseline) BASELINE=$2; shift ;;
        --threshold) THRESHOLD=$2; shift ;;
        --only) ONLY=$2; shift ;;
        -h|--help) usage ;;
        *) echo "callgrind_guard: unknown option '$1'" >&2; usage ;;
    esac
    shift
done
for binary in simctl simbench; do
    if [ ! -x "$BUILD_DIR/$binary" ]; then
        echo "callgrind_guard: no $BUILD_DIR/$binary; build it first (see the top of this script)" >&2
        exit 2
    fi
done
if ! command -v valgrind > /dev/null; then
    echo "callgrind_guard: valgrind is not installed (apt-get install valgrind)" >&2
    exit 3
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 "$ROOT/Tests/Scale/generate_scenario.py" 2000 > "$WORK/scale-2000.yaml"
python3 "$ROOT/Tests/Scale/generate_scenario.py" 20 > "$WORK/scale-20.yaml"

# Instructions (Ir) of one command under callgrind, whole process; its output goes to /dev/null.
count() {
    local out=$WORK/callgrind.out
    rm -f "$out"
    if ! valgrind --tool=callgrind --callgrind-out-file="$out" "$@" > /dev/null 2> "$WORK/valgrind.log"; then
        echo "callgrind_guard: the workload failed: $*" >&2
        tail -20 "$WORK/valgrind.log" >&2
        exit 2
    fi
    local total
    total=$(awk '/^(summary|totals):/ { print $2; exit }' "$out")
    if [ -z "$total" ]; then
        echo "callgrind_guard: no instruction count in callgrind's output for: $*" >&2
        exit 2
    fi
    echo "$total"
}

wanted() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }

declare -A MEASURED
ORDER=()
if wanted lifecycle; then
    many=$(count "$BUILD_DIR/simbench" callgrind)
    one=$(count "$BUILD_DIR/simbench" callgrind-baseline)
    MEASURED[lifecycle]=$(( (many - one) / 999 ))
    ORDER+=(lifecycle)
fi
if wanted run-2000-jsonl; then
    MEASURED[run-2000-jsonl]=$(count "$BUILD_DIR/simctl" run "$WORK/scale-2000.yaml" --format jsonl --jobs 1)
    ORDER+=(run-2000-jsonl)
fi
if wanted signed-run; then
    MEASURED[signed-run]=$(count "$BUILD_DIR/simctl" run "$WORK/scale-20.yaml" --format jsonl --jobs 1 \
        --ca-seed callgrind-guard)
    ORDER+=(signed-run)
fi
if wanted population; then
    MEASURED[population]=$(count "$BUILD_DIR/simctl" population --subscribers 2000)
    ORDER+=(population)
fi

declare -A OLD
if [ -f "$BASELINE" ]; then
    while IFS=$'\t' read -r name figure _; do
        case $name in ''|'#'*) continue ;; esac
        OLD[$name]=$figure
    done < "$BASELINE"
fi

# change NEW OLD: the change in percent, one decimal, signed.
change() { awk -v n="$1" -v o="$2" 'BEGIN { printf "%+.1f", (n - o) * 100 / o }'; }

status=0
printf '%-16s %15s %15s %8s\n' workload baseline now change
for name in "${ORDER[@]}"; do
    now=${MEASURED[$name]}
    old=${OLD[$name]:-}
    if [ -z "$old" ]; then
        printf '%-16s %15s %15s %8s\n' "$name" "-" "$now" "new"
        [ $UPDATE -eq 1 ] || { echo "  $name: not in $BASELINE; add it with --update" >&2; status=1; }
        continue
    fi
    delta=$(change "$now" "$old")
    verdict=""
    if awk -v n="$now" -v o="$old" -v t="$THRESHOLD" 'BEGIN { exit !(n > o * (1 + t / 100)) }'; then
        verdict="  ROSE MORE THAN $THRESHOLD%"
        [ $UPDATE -eq 1 ] || status=1
    fi
    printf '%-16s %15s %15s %7s%%%s\n' "$name" "$old" "$now" "$delta" "$verdict"
done

if [ $UPDATE -eq 1 ]; then
    {
        echo "# Instructions counted by Tests/Perf/callgrind_guard.sh (callgrind, valgrind $(valgrind --version | sed 's/valgrind-//'))."
        echo "# Update only with: Tests/Perf/callgrind_guard.sh BUILD_DIR --update (docs/reliability.md)."
        echo "# lifecycle is per lifecycle; the others are whole processes."
        for name in lifecycle run-2000-jsonl signed-run population; do
            if [ -n "${MEASURED[$name]:-}" ]; then
                printf '%s\t%s\n' "$name" "${MEASURED[$name]}"
            elif [ -n "${OLD[$name]:-}" ]; then
                printf '%s\t%s\n' "$name" "${OLD[$name]}"
            fi
        done
    } > "$BASELINE.new"
    mv "$BASELINE.new" "$BASELINE"
    echo "updated $BASELINE (old and new figures above; commit its diff)"
    exit 0
fi
if [ $status -ne 0 ]; then
    echo "callgrind_guard: a figure rose more than $THRESHOLD% over $BASELINE; if that is intended, run with --update" \
        "and commit the new baseline with the reason" >&2
fi
exit $status
