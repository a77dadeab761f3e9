import Foundation
import Testing
@testable import SubscriptionSimulator

/// Streamed runs (issue 15 part 1, docs/streaming.md): the output written as the clock advances is byte for byte
/// the output of the finished run, in every format and for every Scenarios file; expectations give the same
/// verdicts and messages; a store that keeps only live state sends the same notifications.
@Suite struct StreamingRunTests {
    /// Collects everything a streamed run hands on.
    struct Collector: RunSink {
        var notifications: [SentNotification] = []
        var changes: [EntitlementChange] = []
        mutating func receive(_ n: ArraySlice<SentNotification>, _ c: ArraySlice<EntitlementChange>) {
            notifications += n
            changes += c
        }
    }

    /// Bytes a sink writes, kept by reference so the escaping `write` closure can fill them.
    final class Bytes: @unchecked Sendable {
        var value: [UInt8] = []
        var text: String { String(decoding: value, as: UTF8.self) }
        var write: ([UInt8]) -> Void { { self.value += $0 } }
    }

    static func scenario(_ name: String) throws -> Scenario {
        let url = PackagePaths.scenarios.appendingPathComponent(name)
        return try ScenarioFilesTests.decoder(name).decode(try PackagePaths.read(url))
    }

    /// The scale scenario of Tests/Scale/generate_scenario.py, built the same way, for `customers` customers
    /// (`coincident`: all buy at the start, the script's `--purchases coincident`).
    static func scaleScenario(customers: Int, until: String = "P1Y", coincident: Bool = false) throws -> Scenario {
        let day = 86_400
        var entries: [(Int, Int, String)] = []
        let product = "com.example.scale.monthly"
        for i in 0..<customers {
            let name = "c" + String(repeating: "0", count: 7 - String(i).count) + String(i)
            let bought = coincident ? 0 : i * 30 * day / customers
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
            name: Scale \(customers)
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
        yaml += "until: \(until)\n"
        return try ScenarioDecoder(file: "scale.yaml").decode(yaml)
    }

    @Test(arguments: [false, true])
    func theGeneratorScriptWritesTheSameScaleScenario(coincident: Bool) throws {
        // Tests/Scale/generate_scenario.py (what Tests/Scale/measure.sh runs) and scaleScenario here agree.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = PackagePaths.root.appendingPathComponent("Tests/Scale/generate_scenario.py").path
        process.arguments = ["python3", script, "40"] + (coincident ? ["--purchases", "coincident"] : [])
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let generated = try ScenarioDecoder(file: "scale.yaml").decode(String(decoding: data, as: UTF8.self))
        let built = try Self.scaleScenario(customers: 40, coincident: coincident)
        #expect(generated.timeline.map(\.at) == built.timeline.map(\.at))
        #expect(generated.timeline.filter { $0.at == generated.start }.count == (coincident ? 40 : 1))
        #expect(generated.timeline.map(\.action) == built.timeline.map(\.action))
        #expect(generated.catalog.products == built.catalog.products)
        #expect(generated.app == built.app && generated.until == built.until && generated.seed == built.seed)
        #expect(generated.timeline.count == 40 + 2 + 2 * 2)
    }

    static func streamed(_ scenario: Scenario, retention: StoreRetention = .liveState) -> (
        jsonl: String, decoded: String, timeline: String
    ) {
        streamed(scenario) { sink in
            var sink = sink
            _ = ScenarioRunner.stream(scenario, retention: retention, into: &sink)
            return sink
        }
    }

    /// The jsonl, decoded and timeline sinks of one run, paired.
    typealias AllFormats = PairedSinks<PairedSinks<JSONLSink, DecodedSink>, TimelineSink>

    /// jsonl, decoded and timeline of `scenario`: `run` streams the run into the paired sinks and hands them back to
    /// be finished.
    static func streamed(_ scenario: Scenario, run: (AllFormats) -> AllFormats) -> (
        jsonl: String, decoded: String, timeline: String
    ) {
        let jsonl = Bytes()
        let decoded = Bytes()
        let timeline = Bytes()
        var sink = run(
            PairedSinks(
                PairedSinks(
                    JSONLSink(app: scenario.app, signer: UnsignedTestSigner(), write: jsonl.write),
                    DecodedSink(app: scenario.app, write: decoded.write)),
                TimelineSink(scenario: scenario, write: timeline.write)))
        sink.first.first.finish()
        sink.first.second.finish()
        sink.second.finish()
        return (jsonl.text, decoded.text, timeline.text)
    }

    @Test(arguments: ScenarioFilesTests.files.map(\.lastPathComponent))
    func streamedOutputIsByteIdenticalInEveryFormat(name: String) throws {
        let scenario = try Self.scenario(name)
        let run = ScenarioRunner.execute(scenario)
        let streamed = Self.streamed(scenario)
        #expect(streamed.jsonl == RunOutput.jsonl(run, signer: UnsignedTestSigner()))
        #expect(streamed.decoded == RunOutput.decoded(run))
        #expect(streamed.timeline == RunOutput.timeline(run))
    }

    @Test func streamedJSONLIsByteIdenticalWithTheDefaultSigner() throws {
        // Sandbox's default signer is ES256 with the default chain (docs/signing.md).
        let scenario = try Self.scenario("grace-16d-recovery-day-14.yaml")
        let out = Bytes()
        var sink = JSONLSink(app: scenario.app, write: out.write)
        _ = ScenarioRunner.stream(scenario, into: &sink)
        sink.finish()
        #expect(out.text == RunOutput.jsonl(ScenarioRunner.execute(scenario)))
    }

    static func streamFixtures(_ scenario: Scenario, into directory: URL) throws -> FixtureSink {
        let staging = try FixtureWriter.Staging(directory: directory.path, replacingExisting: false)
        var sink = FixtureSink(scenario: scenario, app: scenario.app, signer: UnsignedTestSigner(), staging: staging)
        _ = ScenarioRunner.stream(scenario, into: &sink)
        sink.finish()
        try staging.commit()
        return sink
    }

    static func folderMatches(_ directory: URL, _ files: [(name: String, contents: String)]) throws -> Bool {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        guard names == files.map(\.name).sorted() else { return false }
        for file in files {
            let written = try String(contentsOf: directory.appendingPathComponent(file.name), encoding: .utf8)
            if written != file.contents { return false }
        }
        return true
    }

    @Test(arguments: ScenarioFilesTests.files.map(\.lastPathComponent))
    func streamedFixtureFolderIsByteIdentical(name: String) throws {
        let scenario = try Self.scenario(name)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("streaming-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("fixtures")
        let sink = try Self.streamFixtures(scenario, into: folder)
        #expect(sink.error == nil)
        let expected = RunOutput.fixtureFiles(ScenarioRunner.execute(scenario), signer: UnsignedTestSigner())
        #expect(try Self.folderMatches(folder, expected))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["fixtures"], "no staging left")
    }

    @Test func fixtureNumbersWidenAsTheCountGrows() throws {
        // Names are four digits wide, or as wide as the last number: past 9,999 the files so far are renamed. Shown
        // here from two digits up (a sink that starts narrower) on 1,157 notifications, so the widening happens
        // twice (at 100 and 1,000) and the folder ends as the finished run's.
        let scenario = try Self.scaleScenario(customers: 100)
        let run = ScenarioRunner.execute(scenario)
        #expect(run.store.notifications.count > 1000)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("streaming-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("f")
        let staging = try FixtureWriter.Staging(directory: folder.path, replacingExisting: false)
        var sink = FixtureSink(scenario: scenario, app: scenario.app, signer: UnsignedTestSigner(), staging: staging)
        sink.width = 2
        _ = ScenarioRunner.stream(scenario, into: &sink)
        sink.finish()
        try staging.commit()
        let expected = RunOutput.fixtureFiles(run, signer: UnsignedTestSigner())
        #expect(try Self.folderMatches(folder, expected))
        // The in-memory destination renames the same way, and keeps the files in the order first written.
        let memory = FixtureFilesInMemory()
        var inMemory = FixtureSink(
            scenario: scenario, app: scenario.app, signer: UnsignedTestSigner(), destination: memory)
        inMemory.width = 2
        inMemory.receive(run.store.notifications[...], run.store.entitlementChanges[...])
        inMemory.finish()
        #expect(memory.files.map(\.name) == expected.map(\.name))
        #expect(memory.files.map { String(decoding: $0.bytes, as: UTF8.self) } == expected.map(\.contents))
    }

    @Test func liveStateStoreSendsTheSameNotificationsAsAFullStore() throws {
        // Long enough (300 customers, two years) that superseded transactions are dropped several times.
        let scenario = try Self.scaleScenario(customers: 300, until: "P2Y")
        var full = Collector()
        var live = Collector()
        let fullRun = ScenarioRunner.stream(scenario, retention: .everything, into: &full)
        let liveRun = ScenarioRunner.stream(scenario, retention: .liveState, into: &live)
        #expect(full.notifications.count > 6000)
        #expect(live.notifications == full.notifications)
        #expect(live.changes == full.changes)
        #expect(full.notifications == ScenarioRunner.execute(scenario).store.notifications)
        #expect(liveRun.store.notifications.isEmpty && liveRun.store.entitlementChanges.isEmpty)
        #expect(liveRun.store.transactions.retainedCount < fullRun.store.transactions.retainedCount / 2)
        // Every subscription's current transaction is still there, as the full store has it.
        for customer in ["c0000000", "c0000010", "c0000299"] {
            #expect(liveRun.store.subscriptions(for: customer) == fullRun.store.subscriptions(for: customer))
        }
    }

    @Test func scenariosThatReadHistoryKeepEverything() throws {
        let refunds = try Self.scenario("refund-request-prorated-reversed.yaml")
        #expect(ScenarioRunner.needsHistory(refunds))
        var sink = Collector()
        #expect(ScenarioRunner.stream(refunds, into: &sink).store.retention == .everything)
        let plain = try Self.scenario("grace-16d-recovery-day-14.yaml")
        #expect(!ScenarioRunner.needsHistory(plain))
        #expect(ScenarioRunner.stream(plain, into: &sink).store.retention == .liveState)
    }

    /// Rule win-back-conditions adds up the paid transactions of a subscription's last run, which a live-state store
    /// has dropped: a win-back offer with `paidMonths` keeps the whole history; other conditions do not need it.
    @Test func aWinBackOfferCountingPaidMonthsKeepsEverything() throws {
        func scenario(_ condition: String) throws -> Scenario {
            try ScenarioFilesTests.decoder("winback.yaml").decode(
                """
                name: A win-back offer with a condition
                start: 2026-03-01T09:00:00Z
                app: { bundleId: com.example.app }
                products:
                  - id: com.example.monthly
                    type: autoRenewable
                    group: pro
                    period: P1M
                    price: 4.99
                    offers:
                      - { id: wb, type: winBack, mode: freeTrial, period: P1M, \(condition) }
                timeline:
                  - at: 0
                    purchase: { customer: alice, product: com.example.monthly }
                until: P3M
                """)
        }
        #expect(ScenarioRunner.needsHistory(try scenario("paidMonths: 2")))
        #expect(!ScenarioRunner.needsHistory(try scenario("waitBetweenOffersMonths: 2")))
    }

    @Test(arguments: ScenarioFilesTests.files.map(\.lastPathComponent))
    func streamedExpectationsGiveTheSameVerdictsAndMessages(name: String) throws {
        let scenario = try Self.scenario(name)
        var variants = [scenario]
        variants.append(contentsOf: Self.brokenVariants(of: scenario))
        for variant in variants {
            var sink = Collector()
            let streamed = ScenarioRunner.stream(variant, into: &sink)
            let finished = ScenarioRunner.execute(variant)
            #expect(streamed.failures == finished.failures)
            #expect(streamed.passed == finished.passed)
        }
    }

    /// Variants of the scenario's expectations that fail in every way a message can say: other products, other
    /// statuses, notifications a day late, a missing and an extra notification, `exactly` read as `includes` and
    /// back, and expectations at instants between, before and after the timeline's.
    static func brokenVariants(of scenario: Scenario) -> [Scenario] {
        var result: [Scenario] = []
        func variant(_ change: (SubscriptionSimulator.Expectation) -> SubscriptionSimulator.Expectation) {
            var copy = scenario
            copy.expectations = scenario.expectations.map(change)
            result.append(copy)
        }
        variant { e in
            switch e {
            case .entitled(let at, let products, let location):
                return .entitled(at: at, products: products.mapValues { $0.isEmpty ? ["x"] : [] }, location: location)
            case .status(let at, let codes, let location):
                return .status(
                    at: at.adding(.days(1)), codes: codes.mapValues { $0.mapValues { $0 % 5 + 1 } }, location: location)
            case .notifications(let customer, let mode, let items, let location):
                let later = items.map { item -> ExpectedNotification in
                    var item = item
                    item.at = item.at.adding(.days(1))
                    return item
                }
                return .notifications(
                    customer: customer, mode: mode == .exactly ? .includes : .exactly, items: later, location: location)
            }
        }
        variant { e in
            switch e {
            case .entitled(let at, let products, let location):
                return .entitled(at: at.adding(milliseconds: -1), products: products, location: location)
            case .status(_, let codes, let location):
                return .status(at: scenario.until.adding(.days(400)), codes: codes, location: location)
            case .notifications(let customer, let mode, let items, let location):
                return .notifications(
                    customer: customer, mode: mode, items: Array(items.dropLast()) + items.suffix(1) + items.suffix(1),
                    location: location)
            }
        }
        variant { e in
            guard case .notifications(let customer, let mode, let items, let location) = e else { return e }
            return .notifications(
                customer: customer, mode: mode == .exactly ? .includes : .exactly, items: Array(items.dropFirst()),
                location: location)
        }
        return result
    }
}
