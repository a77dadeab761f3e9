import Foundation
import Testing

@testable import SubscriptionSimulator

/// `simctl run --deliver` delivers while the run goes (``RunPlan``, `StreamedDelivery`): attempts on the run's
/// virtual clock, only what is in flight kept, and the same log, bodies and summary as delivering the whole run
/// after it (docs/delivery.md, "Streaming").
@Suite struct StreamedDeliveryTests {
    static let files = PackagePaths.yamlFiles(in: PackagePaths.scenarios).map(\.lastPathComponent)

    static func scenario(_ name: String) throws -> Scenario {
        let url = PackagePaths.scenarios.appendingPathComponent(name)
        return try ScenarioDecoder(file: "Scenarios/\(name)", baseDirectory: PackagePaths.scenarios.path)
            .decode(try PackagePaths.read(url))
    }

    /// A server that fails some attempts, chosen by the notification and the attempt only (never by the order in
    /// which attempts arrive), so two deliveries of the same notifications get the same answers.
    static func answer(_ request: DeliveryRequest) -> DeliveryOutcome {
        let sum = request.item.notificationUUID.utf8.reduce(request.attempt) { $0 &+ Int($1) }
        return sum % 3 == 0 ? .status(503) : .status(200)
    }

    /// A transport and log that record what they are given.
    final class Recorder: DeliveryTransport, DeliveryLogWriter, @unchecked Sendable {
        let connections: Int
        let destination = "recorder"
        var bodies: [String] = []
        var lines: [String] = []
        /// Called at each attempt, before it is answered.
        var onAttempt: (DeliveryRequest) -> Void = { _ in }

        init(connections: Int) { self.connections = connections }

        func attempt(_ requests: [DeliveryRequest]) -> [DeliveryOutcome] {
            requests.forEach(onAttempt)
            bodies += requests.map(\.body)
            return requests.map(StreamedDeliveryTests.answer)
        }

        func open() {}
        func write(_ entry: DeliveryLogEntry) { lines.append(CanonicalJSON.string(entry.json)) }
        func close() {}
    }

    /// A sink that drops the output.
    struct Discard: RunSink {
        mutating func receive(_: ArraySlice<SentNotification>, _: ArraySlice<EntitlementChange>) {}
    }

    static let chaos = [
        DeliveryChaos.none,
        DeliveryChaos(
            duplicateRate: 0.3, reorderWindowMilliseconds: 7_200_000, failFirstAttempts: 2, failRate: 0.4),
    ]

    @Test(arguments: files, [1, 3])
    func theStreamedDeliveryIsTheDeliveryAfterTheRun(name: String, connections: Int) throws {
        let scenario = try Self.scenario(name)
        for chaos in Self.chaos {
            for mode in [DeliveryMode.production, .sandbox] {
                // Today's reference: the whole run first, then every notification through the pump.
                let run = try ScenarioRunner.run(scenario)
                var after = NotificationDelivery(
                    items: DeliveryItem.items(of: run.store), schedule: mode.schedule, chaos: chaos, seed: scenario.seed
                )
                let reference = Recorder(connections: connections)
                after.pump(over: reference) { (entry) throws(Never) in reference.write(entry) }

                let streamed = Recorder(connections: connections)
                let plan = RunPlan(
                    delivery: DeliveryPlan(transport: streamed, mode: mode, chaos: chaos, log: streamed))
                let verdict = plan.run(scenario) { _ in }
                guard case .delivered(let summary) = verdict.delivery else {
                    Issue.record("\(name): \(String(describing: verdict.delivery))")
                    return
                }
                #expect(streamed.lines == reference.lines, "\(name) \(chaos) \(mode)")
                #expect(streamed.bodies == reference.bodies, "\(name) \(chaos) \(mode)")
                let expected = after.summary
                #expect(summary.notifications == expected.notifications && summary.delivered == expected.delivered)
                #expect(summary.attempts == expected.attempts)
                #expect(summary.finishedAt == expected.finishedAt)
                let undelivered = summary.undelivered.map { "\($0.item.notificationUUID) \($0.sendAttempts)" }
                #expect(undelivered == expected.undelivered.map { "\($0.item.notificationUUID) \($0.sendAttempts)" })
                #expect(summary.undelivered.allSatisfy { $0.item.body.isEmpty })
            }
        }
    }

    @Test(arguments: files)
    func anAttemptDueAtAnInstantIsMadeBeforeTheRunComputesAnyLaterInstant(name: String) throws {
        let scenario = try Self.scenario(name)
        var earliestSent: Instant?
        var latestSent: Instant?
        var seen: [(attempt: Instant, latestSent: Instant?)] = []
        let transport = Recorder(connections: 1)
        transport.onAttempt = { seen.append(($0.instant, latestSent)) }
        var streamed = StreamedDelivery(DeliveryPlan(transport: transport), scenario: scenario, signer: nil)
        var sink = Discard()
        let run = ScenarioRunner.stream(scenario, retention: .liveState, into: &sink) { notifications, settled in
            if let last = notifications.last { latestSent = last.instant }
            if earliestSent == nil { earliestSent = notifications.first?.instant }
            streamed.follow(notifications, settledBefore: settled)
        }
        let duringRun = seen.count
        _ = streamed.finish(passed: run.passed)
        for made in seen.prefix(duringRun) {
            // Nothing the run sent so far is later than the attempt: the run has not computed any later instant.
            #expect(made.latestSent.map { $0 <= made.attempt } ?? false, "\(name): \(made)")
        }
        guard let earliest = earliestSent, let last = latestSent, earliest < last else { return }
        // The run sends at more than one instant: the first POST is made before its last notification is computed.
        #expect(duringRun > 0)
        #expect(seen.first.map { $0.latestSent.map { $0 < last } ?? false } ?? false, "\(name)")
    }

    static let stopping = """
        name: A run that stops at its last entry
        start: 2026-03-01T09:00:00Z
        app:
          bundleId: com.example.nightsky
          appAppleId: 1234567890
        products:
          - id: com.example.nightsky.pro.monthly
            type: autoRenewable
            group: nightsky.pro
            period: P1M
            price: 9.99
            currency: USD
        timeline:
          - at: 0
            purchase: { customer: alice, product: com.example.nightsky.pro.monthly }
          - at: P3M
            resume: { customer: bob, product: com.example.nightsky.pro.monthly }
        until: P4M

        """

    @Test func aRunThatStopsHasMadeTheAttemptsDueBeforeItsStopAndNoMore() throws {
        let scenario = try ScenarioDecoder(file: "stop.yaml").decode(Self.stopping)
        let transport = Recorder(connections: 1)
        let verdict = RunPlan(delivery: DeliveryPlan(transport: transport, log: transport)).run(scenario) { _ in }
        #expect(verdict.run.stoppedBy != nil)
        guard case .cutShort(let summary, let pending) = verdict.delivery else {
            Issue.record("\(String(describing: verdict.delivery))")
            return
        }
        // SUBSCRIBED at 0, DID_RENEW at P1M and P2M, delivered before the entry at P3M that stops the run; the
        // DID_RENEW at P3M is sent, but the run stops at its instant: its first attempt is not made.
        #expect(summary.notifications == 4 && summary.delivered == 3 && pending == 1)
        #expect(transport.lines.count == summary.attempts && summary.attempts >= 3)
    }

    @Test func aRunWhoseExpectationsFailMakesNoAttemptAfterIt() throws {
        let text =
            Self.stopping.replacingOccurrences(
                of: "  - at: P3M\n    resume: { customer: bob, product: com.example.nightsky.pro.monthly }\n",
                with: "") + "expect:\n  - at: P1M\n    entitled: { alice: [] }\n"
        let scenario = try ScenarioDecoder(file: "fails.yaml").decode(text)
        let transport = Recorder(connections: 1)
        let verdict = RunPlan(delivery: DeliveryPlan(transport: transport)).run(scenario) { _ in }
        #expect(!verdict.run.passed && verdict.run.stoppedBy == nil)
        guard case .cutShort(let summary, _) = verdict.delivery else {
            Issue.record("\(String(describing: verdict.delivery))")
            return
        }
        #expect(summary.notifications >= 4 && summary.attempts > 0)
        #expect(transport.bodies.count == summary.attempts)
    }

    @Test func inFlightHistoryForgetsWhatIsOverAndKeepsTheCounts() throws {
        var delivery = try NotificationDelivery(
            start: Instant(millisecondsSince1970: 0), schedule: .production, seed: 1, history: .inFlight)
        let items = (0..<100).map {
            DeliveryItem(
                notificationUUID: "n\($0)", recipient: "c\($0)", instant: Instant(millisecondsSince1970: 1000 + $0),
                notificationType: "DID_RENEW", subtype: nil, body: #"{"signedPayload":"x"}"#)
        }
        delivery.append(items)
        var lines = 0
        delivery.pump(over: ClosureTransport { $0.index % 10 == 0 ? .status(500) : .status(200) }) {
            (_) throws(Never) in lines += 1
        }
        #expect(delivery.pending.isEmpty && delivery.log.isEmpty && delivery.items.isEmpty)
        let summary = delivery.summary
        #expect(summary.notifications == 100 && summary.delivered == 90 && summary.attempts == 90 + 10 * 6)
        #expect(lines == summary.attempts)
        #expect(summary.undelivered.map(\.item.notificationUUID) == (0..<10).map { "n\($0 * 10)" })
    }

    /// A delivering run's progress reports carry the attempts made and the notifications delivered so far: never
    /// more than the transport has seen when the report is made, never going back.
    @Test func progressReportsCountTheDeliveryAsItGoes() throws {
        let scenario = try StreamingRunTests.scaleScenario(customers: 1500, until: "P6M", coincident: false)
        final class Reports: @unchecked Sendable { var list: [(RunProgress, seen: Int)] = [] }
        let reports = Reports()
        let recorder = Recorder(connections: 1)
        var plan = RunPlan(delivery: DeliveryPlan(transport: recorder))
        plan.progress = { reports.list.append(($0, recorder.bodies.count)) }
        let verdict = plan.run(scenario) { _ in }
        guard case .delivered(let summary) = verdict.delivery else {
            Issue.record("\(String(describing: verdict.delivery))")
            return
        }
        let attempts = reports.list.compactMap(\.0.deliveryAttempts)
        #expect(attempts.count == reports.list.count)  // every report has them
        #expect(reports.list.allSatisfy { ($0.0.deliveryAttempts ?? 0) <= $0.seen })
        #expect(reports.list.allSatisfy { ($0.0.delivered ?? 0) <= ($0.0.deliveryAttempts ?? 0) })
        #expect(zip(attempts, attempts.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(reports.list.count >= 3, "\(reports.list.count) reports")
        #expect(reports.list.dropLast().contains { ($0.0.deliveryAttempts ?? 0) > 0 })  // counted while running
        #expect((reports.list.last?.0.deliveryAttempts ?? 0) <= summary.attempts)
        // Without delivery, no counts.
        var quiet = RunPlan(format: .jsonl)
        let plain = Reports()
        quiet.progress = { plain.list.append(($0, 0)) }
        _ = quiet.run(scenario) { _ in }
        #expect(!plain.list.isEmpty && plain.list.allSatisfy { $0.0.deliveryAttempts == nil && $0.0.delivered == nil })
    }
}
