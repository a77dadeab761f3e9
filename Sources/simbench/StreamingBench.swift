import SubscriptionSimulator

// The `streaming` section (issue 15 part 1, docs/streaming.md): the scale scenario of
// Tests/Scale/generate_scenario.py (the same file, built here), streamed in-process, and the jsonl encoder's rate
// on one core. Whole `simctl run` processes, with their peak memory, are timed by Tests/Scale/measure.sh.

/// The scale scenario: `customers` customers buy a monthly plan (grace 16 d) over the first 30 days; every 20th
/// turns auto-renew off after 10 days, every 20th (offset by 10) has a card that fails from day 20 to day 80; a year.
func scaleScenarioYAML(customers: Int) -> String {
    let day = 86_400
    let product = "com.example.scale.monthly"
    var entries: [(Int, Int, String)] = []
    for i in 0..<customers {
        let digits = String(i)
        let name = "c" + String(repeating: "0", count: max(0, 7 - digits.count)) + digits
        let bought = i * 30 * day / customers
        entries.append((bought, 0, "purchase: { customer: \(name), product: \(product) }"))
        if i % 20 == 0 {
            entries.append((bought + 10 * day, 1, "cancel: { customer: \(name), product: \(product) }"))
        } else if i % 20 == 10 {
            entries.append((bought + 20 * day, 1, "failBilling: { customer: \(name) }"))
            entries.append((bought + 80 * day, 2, "fixBilling: { customer: \(name) }"))
        }
    }
    entries.sort { ($0.0, $0.1) < ($1.0, $1.1) }
    var yaml = """
        name: Scale \(customers) monthly subscribers, 5% cancel, 5% failing cards, one year
        start: 2026-01-01T00:00:00Z
        seed: 15
        app:
          bundleId: com.example.scale
          appAppleId: 1234567890
          gracePeriod: 16d
        products:
          - id: \(product)
            type: autoRenewable
            group: scale
            period: P1M
            price: 9.99
            currency: USD
        timeline:

        """
    for (seconds, _, text) in entries { yaml += "  - at: \(seconds)s\n    \(text)\n" }
    return yaml + "until: P1Y\n"
}

/// Counts what a streamed run hands on.
struct CountingSink: RunSink {
    var notifications = 0
    mutating func receive(_ n: ArraySlice<SentNotification>, _ c: ArraySlice<EntitlementChange>) {
        notifications += n.count
    }
}

/// Encodes `pool` as jsonl lines with `signer`; returns the number encoded.
func encodeAll(_ pool: [SentNotification], app: AppConfiguration, signer: any PayloadSigner) -> Int {
    var bytes = 0
    var sink = JSONLSink(app: app, signer: signer) { bytes &+= $0.count }
    sink.receive(pool[...], [])
    sink.finish()
    sinkValue &+= bytes
    return pool.count
}

nonisolated(unsafe) var sinkValue = 0

func runStreamingSection() {
    let customers = 10_000
    let scenario = try! ScenarioDecoder(file: "scale.yaml").decode(scaleScenarioYAML(customers: customers))
    print("streaming (Tests/Scale scenario, \(customers) customers, one year; whole runs: Tests/Scale/measure.sh)")
    _ = measure("streamed run, nothing encoded (live state only)", unit: "notifications", runs: 3) {
        var sink = CountingSink()
        _ = ScenarioRunner.stream(scenario, into: &sink)
        return sink.notifications
    }
    let pool = Array(ScenarioRunner.execute(scenario).store.notifications.prefix(50_000))
    let rate = measure("jsonl encoding, UnsignedTestSigner (the default: LocalTesting)", unit: "notifications", runs: 3)
    {
        encodeAll(pool, app: scenario.app, signer: UnsignedTestSigner())
    }
    print("    target 200,000 notifications/s on one core: \(rate.median >= 200_000 ? "met" : "NOT met")")
    let few = Array(pool.prefix(1_000))
    _ = measure("jsonl encoding, ES256 (Sandbox/Production; 3 signatures each)", unit: "notifications", runs: 3) {
        encodeAll(few, app: scenario.app, signer: ES256Signer.defaultSigner)
    }
}

/// Untimed, for `valgrind --tool=callgrind .build/release/simbench callgrind-encode`: 10,000 notifications of the
/// scale scenario encoded as jsonl (subtract `callgrind-encode-baseline`, which only prepares them).
func runCallgrindEncode(encode: Bool) {
    let scenario = try! ScenarioDecoder(file: "scale.yaml").decode(scaleScenarioYAML(customers: 1_000))
    let pool = Array(ScenarioRunner.execute(scenario).store.notifications.prefix(10_000))
    let count = encode ? encodeAll(pool, app: scenario.app, signer: UnsignedTestSigner()) : pool.count
    print("\(count) notifications\(encode ? " encoded" : " prepared"), untimed")
}
