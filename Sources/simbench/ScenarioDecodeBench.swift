import Foundation  // String(contentsOfFile:) for /proc/self/status; clock(); malloc_trim

// The `scenario-decode` section (issue 15 part 1): reading the scale scenario of Tests/Scale/generate_scenario.py
// (100,000 customers, about 115,000 timeline entries, 10 MB of YAML) into a YAML tree and decoding it into a
// Scenario: the time each takes (wall clock and this process's CPU time, which a loaded machine inflates less), how
// far the process's peak memory rises while it runs, and what the results keep. Linux only for memory: the peak is
// reset through /proc/self/clear_refs and read from /proc/self/status, and freed memory is handed back to the system
// (malloc_trim) before each reading, so memory the allocator merely kept does not hide growth; elsewhere "n/a".
import SubscriptionSimulator

/// A `/proc/self/status` counter in kB (`VmHWM`: peak resident set; `VmRSS`: resident now), nil where unavailable.
func procStatusKilobytes(_ field: String) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.dropFirst(field.count + 1).filter(\.isNumber))
    }
    return nil
}

/// The resident set now, in kB, after handing freed memory back to the system.
func trimmedResidentKilobytes() -> Int? {
    #if canImport(Glibc)
        // glibc's malloc_trim, which its module map leaves out (malloc.h).
        if let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") {
            typealias Trim = @convention(c) (Int) -> Int32
            _ = unsafeBitCast(symbol, to: Trim.self)(0)
        }
    #endif
    return procStatusKilobytes("VmRSS")
}

/// Resets the peak resident set to the current one (Linux 4.0+: writing 5 to clear_refs).
func resetPeakMemory() -> Bool {
    guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
    handle.write("5".data(using: .utf8)!)
    try? handle.close()
    return true
}

func megabytes(_ kilobytes: Int) -> String { decimal(Double(kilobytes) / 1024) + " MB" }

/// Runs `body` once; prints how far the peak resident set rose above the resident set before it, and how much
/// more stays resident after it (what `body` keeps, once freed memory is handed back).
func memoryGrowth(_ name: String, _ body: () -> Void) {
    let before = trimmedResidentKilobytes()
    let reset = resetPeakMemory()
    body()
    let peak = procStatusKilobytes("VmHWM")
    let after = trimmedResidentKilobytes()
    if reset, let before, let peak, let after {
        print("  \(name): peak \(megabytes(peak - before)) above the start, \(megabytes(after - before)) kept")
    } else {
        print("  \(name): memory n/a (needs Linux /proc)")
    }
}

/// Median wall-clock and process CPU seconds of one call of `body` over `runs`.
func medianSeconds(runs: Int, _ body: () -> Void) -> (wall: Double, cpu: Double) {
    let clock = ContinuousClock()
    var walls: [Double] = []
    var cpus: [Double] = []
    for _ in 0..<runs {
        let cpuStart = Foundation.clock()
        let elapsed = clock.measure(body)
        cpus.append(Double(Foundation.clock() - cpuStart) / Double(CLOCKS_PER_SEC))
        walls.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    return (walls.sorted()[runs / 2], cpus.sorted()[runs / 2])
}

func runScenarioDecodeSection() {
    let customers = 100_000
    let yaml = scaleScenarioYAML(customers: customers)
    let decoder = ScenarioDecoder(file: "scale.yaml")
    print(
        "scenario-decode (Tests/Scale scenario, \(customers) customers, "
            + "\(decimal(Double(yaml.utf8.count) / 1e6)) MB of YAML; the text itself is not counted below)")
    print(
        "  strides: YAMLNode \(MemoryLayout<YAMLNode>.stride) B, YAMLMappingEntry "
            + "\(MemoryLayout<YAMLMappingEntry>.stride) B, TimelineEntry \(MemoryLayout<TimelineEntry>.stride) B, "
            + "SourceLocation \(MemoryLayout<SourceLocation>.stride) B")
    var tree: YAMLNode?
    memoryGrowth("YAMLReader.parse, the tree kept") { tree = try! YAMLReader.parse(yaml) }
    let entries = tree?.value(forKey: "timeline")?.sequenceItems?.count ?? 0
    tree = nil
    var scenario: Scenario?
    memoryGrowth("parse + decode, the Scenario kept") { scenario = try! decoder.decode(yaml) }
    let kept = scenario?.timeline.count ?? 0
    scenario = nil
    var checksum = 0
    let parse = medianSeconds(runs: 3) { checksum &+= (try! YAMLReader.parse(yaml)).location.line }
    print(
        "  YAMLReader.parse: median \(decimal(parse.wall * 1000)) ms wall, \(decimal(parse.cpu * 1000)) ms CPU "
            + "(\(entries) timeline entries, 3 runs)")
    let decode = medianSeconds(runs: 3) { checksum &+= (try! decoder.decode(yaml)).timeline.count }
    print(
        "  parse + decode: median \(decimal(decode.wall * 1000)) ms wall, \(decimal(decode.cpu * 1000)) ms CPU "
            + "(3 runs, \(kept) entries); target well under 1 s: \(decode.wall < 1 ? "met" : "NOT met")")
    if checksum == 0 { print("  (nothing decoded)") }
}
