#!/usr/bin/env bash
# Builds the libFuzzer targets: each one is the library's sources compiled together with one file of Targets/ (and
# the shared structure-aware mutator) by `swiftc -sanitize=fuzzer,address`, into .build/fuzz/<target>.
# Usage: Tests/Fuzz/build.sh [target ...]      (targets: yaml-reader scenario-pipeline storekit-importer)
set -euo pipefail
cd "$(dirname "$0")/../.."

out=.build/fuzz
mkdir -p "$out"
all=(yaml-reader scenario-pipeline storekit-importer)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

source_file() {
  case "$1" in
    yaml-reader) echo Tests/Fuzz/Targets/YAMLReaderTarget.swift ;;
    scenario-pipeline) echo Tests/Fuzz/Targets/ScenarioPipelineTarget.swift ;;
    storekit-importer) echo Tests/Fuzz/Targets/StoreKitImporterTarget.swift ;;
    *) echo "unknown fuzz target '$1'; expected one of: ${all[*]}" >&2; exit 64 ;;
  esac
}

# Compiled from a snapshot, so editing the sources during a long build does not abort it.
snapshot="$out/src"
rm -rf "$snapshot"
mkdir -p "$snapshot"
cp -R Sources/SubscriptionSimulator Tests/Fuzz/Targets "$snapshot/"
mapfile -t library < <(find "$snapshot/SubscriptionSimulator" -name '*.swift' | sort)
for target in "${targets[@]}"; do
  file="$(source_file "$target")"
  echo "== building fuzz target $target"
  # -O keeps the fuzzer fast; ASan and the libFuzzer coverage instrumentation apply to every library file.
  # (ld.gold's notes about ASan's local symbols are noise and filtered out.)
  swiftc -sanitize=fuzzer,address -parse-as-library "${FUZZ_OPTIMIZATION:--O}" -g \
    -module-name SubscriptionSimulatorFuzz -swift-version 6 \
    "${library[@]}" "$snapshot/Targets/Mutator.swift" "$snapshot/Targets/$(basename "$file")" -o "$out/$target" \
    2> >(grep -v "Cannot export local symbol" >&2)
done
