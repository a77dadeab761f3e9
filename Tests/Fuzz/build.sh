#!/usr/bin/env bash
# Builds the libFuzzer targets from the package's own modules, with no source copied or edited: SimctlCrypto,
# SimctlHTTP, SubscriptionSimulator and SimctlServer are each compiled from Sources/ as their own module (as
# Package.swift declares them, same dependencies), instrumented by `swiftc -sanitize=fuzzer,address`, then
# Targets/ (the four targets, the entry that picks one, and the shared structure-aware mutator) as one more module
# that imports them, linked as .build/fuzz/simctl-fuzz with a link per target name (.build/fuzz/<target>).
# The targets reach internal API (`@testable import`), so the modules are built with -enable-testing.
# Usage: Tests/Fuzz/build.sh [target ...]   (targets: yaml-reader scenario-pipeline storekit-importer http-control)
set -euo pipefail
cd "$(dirname "$0")/../.."

out=.build/fuzz
mkdir -p "$out"
all=(yaml-reader scenario-pipeline storekit-importer http-control)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for target in "${targets[@]}"; do
  case "$target" in
    yaml-reader | scenario-pipeline | storekit-importer | http-control) ;;
    *) echo "unknown fuzz target '$target'; expected one of: ${all[*]}" >&2; exit 64 ;;
  esac
done

# -O keeps the fuzzer fast; ASan and the libFuzzer coverage instrumentation apply to every file of every module.
# Every module gets the package name (`simctl`) so that `package` declarations are visible across them, as in the
# package build. SIMCTL_INTERNAL_CHECKS: the store asserts every part's invariants after each advance and each action
# (`Store/SimulatedStore+InternalChecks.swift`), as a debug build does. (ld.gold's notes about ASan's local symbols are
# noise and filtered out.)
flags=(-sanitize=fuzzer,address -parse-as-library "${FUZZ_OPTIMIZATION:--O}" -g -swift-version 6 -package-name simctl
  -D SIMCTL_INTERNAL_CHECKS -enable-testing -I Sources/CSHA256/include -I Sources/CP256/include -I Sources/CBase64/include)
modules="$out/modules"
rm -rf "$modules" "$out/src"
mkdir -p "$modules"
# module NAME SOURCE-FOLDER: compiles one module into $modules/NAME.swiftmodule and $out/libNAME.a.
module() {
  local name="$1" folder="$2" sources
  mapfile -t sources < <(find "$folder" -name '*.swift' | sort)
  echo "== building $name for the fuzz binary"
  swiftc "${flags[@]}" -module-name "$name" -I "$modules" "${sources[@]}" \
    -emit-module -emit-module-path "$modules/$name.swiftmodule" \
    -emit-library -static -o "$out/lib$name.a"
}
# The package's C targets: first SHA-256's compression function, which SimctlCrypto imports through its module map
# (Sources/CSHA256/include, on the -I path above); not instrumented: it takes no fuzzed input's structure.
echo "== building CSHA256 for the fuzz binary"
clang -O2 -g -c -I Sources/CSHA256/include Sources/CSHA256/csha256.c -o "$out/csha256.o"
ar rcs "$out/libCSHA256.a" "$out/csha256.o"
# The same for CP256 (P-256 arithmetic for signing), on the -I path above too.
echo "== building CP256 for the fuzz binary"
clang -O2 -g -c -I Sources/CP256/include Sources/CP256/cp256.c -o "$out/cp256.o"
ar rcs "$out/libCP256.a" "$out/cp256.o"
# And CBase64 (base64url), on the -I path above too.
echo "== building CBase64 for the fuzz binary"
clang -O2 -g -c -I Sources/CBase64/include Sources/CBase64/cbase64.c -o "$out/cbase64.o"
ar rcs "$out/libCBase64.a" "$out/cbase64.o"
module SimctlCrypto Sources/SimctlCrypto
module SimctlHTTP Sources/SimctlHTTP
module SubscriptionSimulator Sources/SubscriptionSimulator
module SimctlServer Sources/SimctlServer
mapfile -t harness < <(find Tests/Fuzz/Targets -name '*.swift' | sort)
echo "== building the fuzz binary (targets: ${all[*]})"
swiftc "${flags[@]}" -module-name SimctlFuzz -I "$modules" "${harness[@]}" \
  "$out/libSimctlServer.a" "$out/libSubscriptionSimulator.a" "$out/libSimctlHTTP.a" "$out/libSimctlCrypto.a" \
  "$out/libCSHA256.a" "$out/libCP256.a" "$out/libCBase64.a" -o "$out/simctl-fuzz" 2> >(grep -v "Cannot export local symbol" >&2)
for target in "${targets[@]}"; do ln -sf simctl-fuzz "$out/$target"; done
