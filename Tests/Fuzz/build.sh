#!/usr/bin/env bash
# Builds the libFuzzer targets: the library's sources and SimctlServer's compiled once, together with Targets/ (the
# four targets, the entry that picks one, and the shared structure-aware mutator), by `swiftc
# -sanitize=fuzzer,address`, into .build/fuzz/simctl-fuzz, linked as .build/fuzz/<target>. The library imports
# SimctlCrypto and the server SimctlHTTP, which are compiled first as their own modules with the same flags and
# linked in; SimctlServer's `import SubscriptionSimulator` is dropped from its snapshot, as the library is in the
# same module there.
# Usage: Tests/Fuzz/build.sh [target ...]   (targets: yaml-reader scenario-pipeline storekit-importer http-control)
set -euo pipefail
cd "$(dirname "$0")/../.."

out=.build/fuzz
mkdir -p "$out"
all=(yaml-reader scenario-pipeline storekit-importer http-control)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

# Compiled from a snapshot, so editing the sources during a long build does not abort it. One binary holds every
# target (Targets/Entry.swift picks one by SIMCTL_FUZZ_TARGET or by the name it is started by), so the library is
# compiled once: .build/fuzz/simctl-fuzz, with a link per target name.
snapshot="$out/src"
rm -rf "$snapshot"
mkdir -p "$snapshot"
cp -R Sources/SimctlCrypto Sources/SimctlHTTP Sources/SubscriptionSimulator Sources/SimctlServer Tests/Fuzz/Targets \
  "$snapshot/"
find "$snapshot/SimctlServer" -name '*.swift' -exec sed -i '/^import SubscriptionSimulator$/d' {} +
# In one module, an extension member of the server's file clashes with the library's one of the same name: rename it.
sed -i 's/\btrimmingSpaces\b/serverTrimmingSpaces/g' "$snapshot/SimctlServer/BearerToken.swift"
mapfile -t crypto < <(find "$snapshot/SimctlCrypto" -name '*.swift' | sort)
mapfile -t http < <(find "$snapshot/SimctlHTTP" -name '*.swift' | sort)
mapfile -t library < <(find "$snapshot/SubscriptionSimulator" "$snapshot/SimctlServer" -name '*.swift' | sort)
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
echo "== building SimctlHTTP for the fuzz binary"
swiftc "${flags[@]}" -module-name SimctlHTTP "${http[@]}" \
  -emit-module -emit-module-path "$modules/SimctlHTTP.swiftmodule" \
  -emit-library -static -o "$out/libSimctlHTTP.a"
echo "== building the fuzz binary (targets: ${all[*]})"
swiftc "${flags[@]}" -module-name SubscriptionSimulatorFuzz -I "$modules" \
  "${library[@]}" "${harness[@]}" "$out/libSimctlCrypto.a" "$out/libSimctlHTTP.a" -o "$out/simctl-fuzz" \
  2> >(grep -v "Cannot export local symbol" >&2)
for target in "${targets[@]}"; do
  case "$target" in
    yaml-reader | scenario-pipeline | storekit-importer | http-control) ln -sf simctl-fuzz "$out/$target" ;;
    *) echo "unknown fuzz target '$target'; expected one of: ${all[*]}" >&2; exit 64 ;;
  esac
done
