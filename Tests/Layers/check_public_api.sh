#!/usr/bin/env bash
# The documented entry points are public, and only they need to be: the Swift examples of docs/ (kept verbatim in
# Tests/SubscriptionSimulatorTests/Docs/*Examples.swift between `docs:begin` and `docs:end`, which DocExamplesTests
# checks) must type-check as a module OUTSIDE this package. Inside the package, tests see `package` declarations too, so `swift test` alone cannot tell
# whether an example needs something that is not public.
# Then docs/embedding.md is followed from outside the package: Tests/Layers/check_embedding_docs.sh builds a package of
# its own from the page's files and runs its tests (several minutes: it builds the library again).
# Usage: Tests/Layers/check_public_api.sh [BUILD_DIR]   (default .build/debug, after `swift build --build-tests`)
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-.build/debug}"
resources="$(swift -print-target-info | sed -n 's/.*"runtimeResourcePath": "\(.*\)".*/\1/p' | head -1)"
case "$(uname -s)" in
  Darwin) platform=macosx ;;
  *) platform=linux ;;
esac
# Every file of docs examples (DocExamplesTests requires each ```swift block of docs/ to be in one of them).
examples=(Tests/SubscriptionSimulatorTests/Docs/*Examples.swift)
# The package's C targets (their module maps), which a client of SimctlCrypto loads as SwiftPM's clients do.
c_includes=()
for include in Sources/*/include; do c_includes+=(-I "$include"); done
for file in "${examples[@]}"; do
  # Each file alone, as a module of its own (no -package-name): only `public` declarations are visible.
  swiftc -typecheck -swift-version 6 -module-name OutsideThePackage -I "$build/Modules" \
    -I "$resources/$platform" "${c_includes[@]}" "$file"
done
echo "public API: ${#examples[@]} files of docs examples type-check from outside the package"
# docs/embedding.md's examples are a package of their own, built and run from outside this one (issue 51).
bash Tests/Layers/check_embedding_docs.sh
