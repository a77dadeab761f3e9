#!/usr/bin/env bash
# Builds the libFuzzer targets: the library's sources compiled once, together with Targets/ (the three targets, the
# entry that picks one, and the shared structure-aware mutator), by `swiftc -sanitize=fuzzer,address`, into
# .build/fuzz/simctl-fuzz, linked as .build/fuzz/<target>.
# Usage: Tests/Fuzz/build.sh [target ...]      (targets: yaml-reader scenario-pipeline storekit-importer)
set -euo pipefail
cd "$(dirname "$0")/../.."

out=.build/fuzz
mkdir -p "$out"
all=(yaml-reader scenario-pipeline storekit-importer)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

# Compiled from a snapshot, so editing the sources during a long build does not abort it. One binary holds every
# target (Targets/Entry.swift picks one by SIMCTL_FUZZ_TARGET or by the name it is started by), so the library is
# compiled once: .build/fuzz/simctl-fuzz, with a link per target name.
snapshot="$out/src"
rm -rf "$snapshot"
mkdir -p "$snapshot"
cp -R Sources/SubscriptionSimulator Tests/Fuzz/Targets "$snapshot/"
mapfile -t library < <(find "$snapshot/SubscriptionSimulator" -name '*.swift' | sort)
mapfile -t harness < <(find "$snapshot/Targets" -name '*.swift' | sort)
echo "== building the fuzz binary (targets: ${all[*]})"
# -O keeps the fuzzer fast; ASan and the libFuzzer coverage instrumentation apply to every library file.
# (ld.gold's notes about ASan's local symbols are noise and filtered out.)
swiftc -sanitize=fuzzer,address -parse-as-library "${FUZZ_OPTIMIZATION:--O}" -g \
  -module-name SubscriptionSimulatorFuzz -swift-version 6 \
  "${library[@]}" "${harness[@]}" -o "$out/simctl-fuzz" \
  2> >(grep -v "Cannot export local symbol" >&2)
for target in "${targets[@]}"; do
  case "$target" in
    yaml-reader | scenario-pipeline | storekit-importer) ln -sf simctl-fuzz "$out/$target" ;;
    *) echo "unknown fuzz target '$target'; expected one of: ${all[*]}" >&2; exit 64 ;;
  esac
done
