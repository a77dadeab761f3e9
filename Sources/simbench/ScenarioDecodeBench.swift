import Foundation  // String(contentsOfFile:), for /proc/self/status
import SubscriptionSimulator

// The `scenario-decode` section (issue 15 part 1): reading the scale scenario of Tests/Scale/generate_scenario.py
// (100,000 customers, about 110,000 timeline entries, 10 MB of YAML) into a YAML tree and decoding it into a
// Scenario, with the time each takes and how much the process's peak memory grows while it runs (Linux: the
// peak is reset through /proc/self/clear_refs and read from /proc/self/status; elsewhere it prints "n/a").

/// A `/proc/self/status` counter in kB (`VmHWM`: peak resident set; `VmRSS`: resident now), nil where unavailable.
func procStatusKilobytes(_ field: String) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.dropFirst(field.count + 1).filter(\.isNumber))
    }
    return nil
}

/// Resets the peak resident set to the current one (Linux 4.0+: writing 5 to clear_refs).
func resetPeakMemory() -> Bool {
    guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
    handle.write("5".data(using: .utf8)!)
    try? handle.close()
    return true
}

/// Runs `body` once and prints how far the peak resident set rose above the resident set before it.
func peakGrowth(_ name: String, _ body: () -> Void) {
    let reset = resetPeakMemory()
    let before = procStatusKilobytes("VmRSS")
    body()
    let peak = procStatusKilobytes("VmHWM")
    if reset, let before, let peak {
        print("  \(name): peak resident set \(decimal(Double(peak - before) / 1024)) MB above the start")
    } else {
        print("  \(name): peak resident set n/a (needs Linux /proc)")
    }
}

/// Seconds one call of `body` takes, the median of `runs`.
func medianSeconds(runs: Int, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    var times: [Double] = []
    for _ in 0..<runs {
        let elapsed = clock.measure(body)
        times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    return times.sorted()[times.count / 2]
}

func runScenarioDecodeSection() {
    let customers = 100_000
    var yaml: String? = scaleScenarioYAML(customers: customers)
    let bytes = yaml!.utf8.count
    print("scenario-decode (Tests/Scale scenario, \(customers) customers, \(decimal(Double(bytes) / 1e6)) MB of YAML)")
    print(
        "  strides: YAMLNode \(MemoryLayout<YAMLNode>.stride) B, TimelineEntry \(MemoryLayout<TimelineEntry>.stride) B, "
            + "ScenarioAction \(MemoryLayout<ScenarioAction>.stride) B, SourceLocation \(MemoryLayout<SourceLocation>.stride) B"
    )
    var entries = 0
    peakGrowth("YAMLReader.parse") {
        let root = try! YAMLReader.parse(yaml!)
        entries = root.value(forKey: "timeline")?.sequenceItems?.count ?? 0
    }
    var scenario: Scenario?
    peakGrowth("parse + decode (the Scenario kept)") {
        scenario = try! ScenarioDecoder(file: "scale.yaml").decode(yaml!)
    }
    peakGrowth("the Scenario alone (after the source text is freed), measured as growth while decoding again") {
        let source = yaml!
        yaml = nil
        scenario = nil
        scenario = try! ScenarioDecoder(file: "scale.yaml").decode(source)
        yaml = source
    }
    var decoded = 0
    let parse = medianSeconds(runs: 3) { decoded = (try! YAMLReader.parse(yaml!)).location.line }
    print("  YAMLReader.parse: median \(decimal(parse * 1000)) ms (\(entries) timeline entries, 3 runs)")
    let decode = medianSeconds(runs: 3) {
        decoded = (try! ScenarioDecoder(file: "scale.yaml").decode(yaml!)).timeline.count
    }
    print(
        "  parse + decode: median \(decimal(decode * 1000)) ms (3 runs, \(decoded) entries); "
            + "target well under 1 s: \(decode < 1 ? "met" : "NOT met")")
    print("  decoded timeline entries kept: \(scenario?.timeline.count ?? 0)")
}
