// libFuzzer target: the whole scenario pipeline as `simctl run` drives it: decode, run, then every output format
// (timeline, jsonl with signed JWS, decoded, fixture files). Every input must give output or a located error.

@testable import SubscriptionSimulator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Folder the scenario's relative `storekit:` paths resolve against (build.sh passes the repository's Scenarios/).
let scenarioBase: String = {
    if let value = getenv("SIMCTL_FUZZ_BASE") { return String(cString: value) }
    return "Scenarios"
}()

/// One of the entries ``fuzzTestOneInput`` dispatches to (Entry.swift).
func fuzzScenarioPipeline(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    let scenario: Scenario
    let decoder = ScenarioDecoder(file: "fuzz.yaml", baseDirectory: scenarioBase)
    // The timeline read in chunks of one item on two threads (as `simctl run --jobs 2` reads a long one) gives the
    // same scenario, and nothing where the read on one thread finds an error (it then falls back to that read).
    let chunked = decoder.decodeInChunks(text, overrides: .init(), threads: 2, itemsPerChunk: 1)
    do throws(ScenarioError) {
        scenario = try decoder.decode(text)
    } catch {
        _ = error.description
        if chunked != nil { fatalError("the chunked read gave a scenario where the read on one thread gave \(error)") }
        return 0
    }
    if let chunked, chunked != scenario { fatalError("the chunked read gave another scenario") }
    let run: ScenarioRun
    do throws(ScenarioError) { run = try ScenarioRunner.run(scenario) } catch {
        _ = error.description
        return 0
    }
    _ = RunOutput.timeline(run)
    _ = RunOutput.decoded(run)
    // Signing is the slow part (ECDSA per notification); runs with many notifications are covered by the timeline
    // and decoded forms, which walk the same records.
    if run.store.notifications.count <= 200 {
        _ = RunOutput.jsonl(run)
        _ = RunOutput.fixtureFiles(run)
    }
    return 0
}
