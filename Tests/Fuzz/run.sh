#!/usr/bin/env bash
# Runs the fuzz targets built by build.sh, each seeded by seeds.py, with its dictionary and the structure-aware
# mutator. Fails (exit 1) if any target crashes, leaks, times out or runs out of memory; the input that did is
# left in .build/fuzz/artifacts/ (commit it to Tests/Fuzz/Regressions/ with the fix).
#
#   Tests/Fuzz/run.sh --seconds 25              # CI: each target for 25 seconds
#   Tests/Fuzz/run.sh --runs 1000000            # the million-input campaign (docs/fuzzing.md)
#   Tests/Fuzz/run.sh --seconds 60 yaml-reader  # one target
set -euo pipefail
cd "$(dirname "$0")/../.."

limit=(-max_total_time=25)
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) limit=(-max_total_time="$2"); shift 2 ;;
    --runs) limit=(-runs="$2"); shift 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(yaml-reader scenario-pipeline storekit-importer http-control)

python3 Tests/Fuzz/seeds.py "${targets[@]}"
# The Swift runtime's backtracer would catch ASan's signals first; libFuzzer must see them.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export SIMCTL_FUZZ_BASE="$PWD/Scenarios"
mkdir -p .build/fuzz/artifacts .build/fuzz/logs
status=0
for target in "${targets[@]}"; do
  case "$target" in
    yaml-reader) dict=yaml ;;
    scenario-pipeline) dict=scenario ;;
    storekit-importer) dict=storekit ;;
    http-control) dict=http ;;
    *) echo "unknown fuzz target '$target'" >&2; exit 64 ;;
  esac
  binary=".build/fuzz/$target"
  export SIMCTL_FUZZ_TARGET="$target"
  [ -x "$binary" ] || { echo "$binary is missing: run Tests/Fuzz/build.sh first" >&2; exit 66; }
  corpus=".build/fuzz/corpus/$target"
  mkdir -p "$corpus"
  log=".build/fuzz/logs/$target.log"
  echo "== fuzz $target (${limit[*]})"
  # Inputs up to FUZZ_MAX_LEN bytes (8 KiB: 4,000 nested '- ', far past the limit of 100; longer inputs mostly slow
  # the search down, and the 80 KB ones of issue 10 are regression tests); one input may take 20 s and 2 GB at
  # most: slower or bigger is a finding, like a crash.
  if "$binary" "$corpus" ".build/fuzz/seeds/$target" "${limit[@]}" -dict="Tests/Fuzz/Dictionaries/$dict.dict" \
    -max_len="${FUZZ_MAX_LEN:-8192}" -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix=".build/fuzz/artifacts/$target-" > "$log" 2>&1; then
    result=ok
  else
    result=FAILED
    status=1
  fi
  execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)"
  last="$(grep -E '^#[0-9]+' "$log" | tail -1 || true)"
  echo "$target: $result; executed ${execs:-?} inputs; last status: ${last:-none}"
  if [ "$result" = FAILED ]; then tail -40 "$log"; fi
done
exit $status
