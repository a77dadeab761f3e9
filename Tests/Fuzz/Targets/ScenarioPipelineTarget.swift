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
    do throws(ScenarioError) {
        scenario = try ScenarioDecoder(file: "fuzz.yaml", baseDirectory: scenarioBase).decode(text)
    } catch {
        _ = error.description
        return 0
    }
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
