import Foundation
import SubscriptionSimulator
import Testing

/// The scenario writer reads back as the same scenario, and the `delivery:` block is decoded and honoured.
@Suite struct ScenarioYAMLWriterTests {
    /// The scenario without what a written file cannot keep: the file name and source locations.
    static func comparable(_ scenario: Scenario) -> Scenario {
        var s = scenario
        s.file = ""
        s.endLocation = SourceLocation(line: 1, column: 1)
        s.family?.location = SourceLocation(line: 1, column: 1)
        let zero = SourceLocation(line: 0, column: 0)
        s.timeline = s.timeline.map { entry in
            var entry = entry
            entry.location = zero
            return entry
        }
        s.expectations = s.expectations.map { expectation in
            switch expectation {
            case .entitled(let at, let products, _): return .entitled(at: at, products: products, location: zero)
            case .status(let at, let codes, _): return .status(at: at, codes: codes, location: zero)
            case .notifications(let customer, let mode, let items, _):
                return .notifications(
                    customer: customer, mode: mode,
                    items: items.map { item in
                        var item = item
                        item.location = zero
                        item.fields = item.fields.map { field in
                            var field = field
                            field.location = zero
                            return field
                        }
                        return item
                    }, location: zero)
            }
        }
        return s
    }

    @Test(
        arguments: try FileManager.default.contentsOfDirectory(atPath: PackagePaths.scenarios.path).filter {
            $0.hasSuffix(".yaml")
        }.sorted())
    func everyScenarioFileRoundTrips(name: String) throws {
        let path = PackagePaths.scenarios.appendingPathComponent(name).path
        let scenario = try ScenarioDecoder(file: path).decode(try String(contentsOfFile: path, encoding: .utf8))
        let yaml = ScenarioYAMLWriter.yaml(scenario)
        let again = try ScenarioDecoder(file: path).decode(yaml)
        #expect(Self.comparable(again) == Self.comparable(scenario), "\(yaml)")
    }

    @Test func awkwardTextIsQuoted() throws {
        for text in ["a: b", "#x", "-lead", "[x]", "quote\"d", "tab\there"] {
            let yaml =
                "name: \(ScenarioYAMLWriter.scalar(text))\nstart: 2026-03-01T09:00:00Z\napp: { bundleId: b }\n"
                + "products: [{ id: p, type: consumable, price: 1 }]\ntimeline: []\n"
            #expect(try ScenarioDecoder(file: "x").decode(yaml).name == text)
        }
    }

    static let faulty = """
        name: Faults
        start: 2026-03-01T09:00:00Z
        app: { bundleId: com.example.app }
        products:
          - { id: com.example.monthly, type: autoRenewable, group: pro, period: P1M, price: 4.99 }
        timeline:
          - at: 0
            purchase: { customer: alice, product: com.example.monthly }
        until: P1M
        delivery:
          faults:
            - { customer: alice, at: 0, type: SUBSCRIBED, subtype: INITIAL_BUY, duplicate: true }
            - { customer: alice, at: P1M, type: DID_RENEW, failedAttempts: 2 }
        """

    @Test func deliveryFaultsAreMadeByTheDelivery() throws {
        let scenario = try ScenarioDecoder(file: "faults.yaml").decode(Self.faulty)
        #expect(scenario.deliveryFaults.count == 2)
        let run = try ScenarioRunner.run(scenario)
        let report = NotificationDelivery.deliver(run) { _ in .status(200) }
        #expect(report.notifications[0].sendAttempts.count == 2)  // the attempt and its duplicate
        #expect(report.notifications[1].sendAttempts.map(\.sendAttemptResult) == [.other, .other, .success])
        let again = try ScenarioDecoder(file: "faults.yaml").decode(ScenarioYAMLWriter.yaml(scenario))
        #expect(again.deliveryFaults == scenario.deliveryFaults)
    }

    @Test func aFaultNamingNobodyIsRefused() {
        let text = Self.faulty.replacingOccurrences(of: "customer: alice, at: P1M", with: "customer: alcie, at: P1M")
        #expect(throws: ScenarioError.self) { try ScenarioDecoder(file: "faults.yaml").decode(text) }
    }
}

/// `simctl run --deliver` (``RunPlan``) makes the faults of the `delivery:` block.
@Suite struct DeliveryBlockRunPlanTests {
    /// Keeps every delivery log line the plan writes.
    final class RecordingLog: DeliveryLogWriter {
        var entries: [DeliveryLogEntry] = []
        func open() {}
        func write(_ entry: DeliveryLogEntry) { entries.append(entry) }
        func close() {}
    }

    @Test func runPlanDeliveryMakesTheFaults() throws {
        let scenario = try ScenarioDecoder(file: "faults.yaml").decode(ScenarioYAMLWriterTests.faulty)
        let transport = ClosureTransport { _ in .status(200) }
        let log = RecordingLog()
        let verdict = RunPlan(format: .jsonl, delivery: DeliveryPlan(transport: transport, log: log)).run(scenario) {
            _ in
        }
        guard case .delivered = verdict.delivery else {
            Issue.record("not delivered: \(String(describing: verdict.delivery))")
            return
        }
        #expect(log.entries.map(\.chaos) == [nil, "duplicate", "failFirst", "failFirst", nil])
    }
}
