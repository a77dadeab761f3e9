#!/usr/bin/env bash
# Builds the libFuzzer targets: the library's sources compiled once, together with Targets/ (the three targets, the
# entry that picks one, and the shared structure-aware mutator), by `swiftc -sanitize=fuzzer,address`, into
# .build/fuzz/simctl-fuzz, linked as .build/fuzz/<target>. The library imports SimctlCrypto, which is compiled
# first as its own module with the same flags and linked in.
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
cp -R Sources/SimctlCrypto Sources/SubscriptionSimulator Tests/Fuzz/Targets "$snapshot/"
mapfile -t crypto < <(find "$snapshot/SimctlCrypto" -name '*.swift' | sort)
mapfile -t library < <(find "$snapshot/SubscriptionSimulator" -name '*.swift' | sort)
mapfile -t harness < <(find "$snapshot/Targets" -name '*.swift' | sort)
# -O keeps the fuzzer fast; ASan and the libFuzzer coverage instrumentation apply to every file of both modules.
# Both modules get the same package name (`simctl`): the library uses SimctlCrypto's `package` declarations, which
# only a module of the same package may. (ld.gold's notes about ASan's local symbols are noise and filtered out.)
flags=(-sanitize=fuzzer,address -parse-as-library "${FUZZ_OPTIMIZATION:--O}" -g -swift-version 6 -package-name simctl)
modules="$out/modules"
mkdir -p "$modules"
echo "== building SimctlCrypto for the fuzz binary"
swiftc "${flags[@]}" -module-name SimctlCrypto "${crypto[@]}" \
  -emit-module -emit-module-path "$modules/SimctlCrypto.swiftmodule" \
  -emit-library -static -o "$out/libSimctlCrypto.a"
echo "== building the fuzz binary (targets: ${all[*]})"
swiftc "${flags[@]}" -module-name SubscriptionSimulatorFuzz -I "$modules" \
  "${library[@]}" "${harness[@]}" "$out/libSimctlCrypto.a" -o "$out/simctl-fuzz" \
  2> >(grep -v "Cannot export local symbol" >&2)
for target in "${targets[@]}"; do
  case "$target" in
    yaml-reader | scenario-pipeline | storekit-importer) ln -sf simctl-fuzz "$out/$target" ;;
    *) echo "unknown fuzz target '$target'; expected one of: ${all[*]}" >&2; exit 64 ;;
  esac
done
