// libFuzzer's entry point for the one fuzz binary that holds every target (build.sh compiles the library once):
// SIMCTL_FUZZ_TARGET names the target (run.sh sets it; the `.build/fuzz/<target>` links also select it by name).

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The targets, by the names run.sh and docs/fuzzing.md use.
let fuzzTargets: [String: @Sendable (UnsafePointer<UInt8>, Int) -> CInt] = [
    "yaml-reader": fuzzYAMLReader,
    "scenario-pipeline": fuzzScenarioPipeline,
    "storekit-importer": fuzzStoreKitImporter,
    "http-control": fuzzHTTPControl,
]

/// The target chosen for this process: SIMCTL_FUZZ_TARGET, else the name the binary was started by. An unknown
/// name stops the process at the first input with a message, before any fuzzing.
let selectedFuzzTarget: @Sendable (UnsafePointer<UInt8>, Int) -> CInt = {
    var name = getenv("SIMCTL_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    if name.isEmpty, let argv0 = CommandLine.arguments.first {
        name = String(argv0.split(separator: "/").last ?? "")
    }
    guard let target = fuzzTargets[name] else {
        let known = fuzzTargets.keys.sorted().joined(separator: ", ")
        print("unknown fuzz target '\(name)'; set SIMCTL_FUZZ_TARGET to one of: \(known)")
        exit(64)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    selectedFuzzTarget(data, size)
}
