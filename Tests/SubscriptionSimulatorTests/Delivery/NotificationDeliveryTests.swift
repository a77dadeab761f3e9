import Testing

@testable import SubscriptionSimulator

/// The delivery rules on virtual time, with in-process handlers (no sockets).
@Suite struct NotificationDeliveryTests {
    static let t0 = Instant(millisecondsSince1970: 1_772_355_600_000)
    static let hour: Int64 = 3_600_000

    static func item(_ n: Int, at offset: Int64 = 0, recipient: String? = nil) -> DeliveryItem {
        DeliveryItem(
            notificationUUID: "uuid-\(n)", recipient: recipient ?? "customer-\(n)",
            instant: t0.adding(milliseconds: offset),
            notificationType: "DID_RENEW", subtype: nil, body: "{\"signedPayload\":\"body-\(n)\"}")
    }

    /// Hours after t0 of each attempt, in the order made.
    static func hours(_ report: DeliveryReport) -> [Int64] {
        report.log.map { t0.milliseconds(to: $0.instant) / hour }
    }

    @Test func productionRetriesFiveTimesAt1_12_24_48_72HoursAfterThePreviousAttempt() {
        let report = NotificationDelivery.deliver([Self.item(1)], schedule: .production, seed: 1) { _ in .status(500) }
        #expect(Self.hours(report) == [0, 1, 13, 37, 85, 157])
        #expect(report.log.map(\.attempt) == [1, 2, 3, 4, 5, 6])
        #expect(report.undelivered.count == 1 && report.undelivered[0].sendAttempts.count == 6)
        #expect(RetrySchedule.production.maximumAttempts == 6)
    }

    @Test func aServerFailingThreeTimesGetsTheFourthAttemptAt37Hours() {
        let report = NotificationDelivery.deliver([Self.item(1)], schedule: .production, seed: 1) { request in
            request.attempt <= 3 ? .status(503) : .status(200)
        }
        #expect(Self.hours(report) == [0, 1, 13, 37])
        #expect(report.allDelivered)
        #expect(
            report.notifications[0].sendAttempts.map(\.sendAttemptResult) == [
                .unsuccessfulHTTPResponseCode, .unsuccessfulHTTPResponseCode, .unsuccessfulHTTPResponseCode, .success,
            ])
    }

    @Test func sandboxTriesOnce() {
        let report = NotificationDelivery.deliver([Self.item(1)], schedule: .sandbox, seed: 1) { _ in
            .failure(.timedOut)
        }
        #expect(report.log.count == 1)
        #expect(report.undelivered.map(\.item.notificationUUID) == ["uuid-1"])
    }

    @Test(arguments: [
        (199, false), (200, true), (204, true), (206, true), (207, false), (301, false), (404, false), (500, false),
    ])
    func successIsHTTP200Through206(status: Int, success: Bool) {
        #expect((SendAttemptResult.forHTTPStatus(status) == .success) == success)
    }

    @Test func sendAttemptResultsAreApplesValues() {
        #expect(
            SendAttemptResult.allCases.map(\.rawValue) == [
                "SUCCESS", "TIMED_OUT", "TLS_ISSUE", "CIRCULAR_REDIRECT", "NO_RESPONSE", "SOCKET_ISSUE",
                "UNSUPPORTED_CHARSET", "INVALID_RESPONSE", "PREMATURE_CLOSE", "UNSUCCESSFUL_HTTP_RESPONSE_CODE",
                "OTHER",
            ])
    }

    @Test func aRetriedNotificationArrivesAfterLaterOnes() {
        let items = [Self.item(1), Self.item(2, at: 30 * 60_000), Self.item(3, at: 2 * Self.hour)]
        var seen: [String] = []
        _ = NotificationDelivery.deliver(items, schedule: .production, seed: 1) { request in
            seen.append(request.item.notificationUUID)
            return request.item.notificationUUID == "uuid-1" && request.attempt == 1 ? .status(500) : .status(200)
        }
        #expect(seen == ["uuid-1", "uuid-2", "uuid-1", "uuid-3"])
    }

    @Test func attemptsAtOneInstantRunInTheOrderGivenFirstAttemptsBeforeRetries() {
        // uuid-1 fails at t0 and is retried at t0 + 1 h, the instant uuid-2 is first due.
        let items = [Self.item(1), Self.item(2, at: Self.hour)]
        var seen: [String] = []
        _ = NotificationDelivery.deliver(items, schedule: .production, seed: 1) { request in
            seen.append("\(request.item.notificationUUID)#\(request.attempt)")
            return request.attempt == 1 && request.item.notificationUUID == "uuid-1" ? .status(500) : .status(200)
        }
        #expect(seen == ["uuid-1#1", "uuid-2#1", "uuid-1#2"])
    }

    @Test func retriesDueAfterTheScenarioEndAreStillMade() throws {
        let yaml = """
            name: one purchase
            start: 2026-03-01T09:00:00Z
            seed: 3
            app:
              bundleId: com.example.app
            products:
              - id: com.example.monthly
                type: autoRenewable
                group: pro
                period: P1M
                price: 4.99
            timeline:
              - at: 0
                purchase: { customer: alice, product: com.example.monthly }
            until: 1h
            """
        let run = try ScenarioRunner.run(try ScenarioDecoder(file: "inline.yaml").decode(yaml))
        let report = NotificationDelivery.deliver(run) { _ in .failure(.socketIssue) }
        #expect(report.log.count == 6 * run.store.notifications.count)
        #expect(report.finishedAt! > run.scenario.until)
        #expect(report.undelivered.count == run.store.notifications.count)
    }

    @Test func everyNotificationEndsDeliveredOrOutOfAttempts() {
        let items = (0..<50).map { Self.item($0, at: Int64($0) * 600_000) }
        let report = NotificationDelivery.deliver(items, schedule: .production, seed: 9) { request in
            request.index % 3 == 0
                ? .status(404) : (request.attempt == 1 && request.index % 2 == 0 ? .status(500) : .status(200))
        }
        #expect(report.notifications.count == 50)
        for record in report.notifications {
            #expect(record.delivered == (record.sendAttempts.last?.sendAttemptResult == .success))
            #expect(record.delivered || record.sendAttempts.count == 6)
        }
        #expect(report.undelivered.count == 17)
    }

    @Test func chaosIsReproducibleFromTheSeed() {
        let items = (0..<40).map { Self.item($0, at: Int64($0) * 60_000, recipient: "c\($0 % 5)") }
        let chaos = DeliveryChaos(
            duplicateRate: 0.3, reorderWindowMilliseconds: 2 * Self.hour, failFirstAttempts: 1, failRate: 0.5)
        func run(_ seed: UInt64) -> DeliveryReport {
            NotificationDelivery.deliver(items, schedule: .production, chaos: chaos, seed: seed) { _ in .status(200) }
        }
        #expect(run(42) == run(42))
        #expect(run(42).log != run(43).log)
    }

    @Test func duplicatesAreSentAgainAnHourAfterTheDelivery() {
        let items = [Self.item(1), Self.item(2, at: 10 * 60_000)]
        var bodies: [String] = []
        let report = NotificationDelivery.deliver(
            items, schedule: .production, chaos: DeliveryChaos(duplicateRate: 1), seed: 5
        ) { request in
            bodies.append(request.body)
            return .status(200)
        }
        #expect(bodies == [items[0].body, items[1].body, items[0].body, items[1].body])
        #expect(report.log.map(\.chaos) == [nil, nil, "duplicate", "duplicate"])
        #expect(report.log[2].attempt == 2 && Self.t0.milliseconds(to: report.log[2].instant) == Self.hour)
        #expect(report.allDelivered)
    }

    @Test func reorderingShufflesRecipientsButKeepsEachRecipientsOrder() {
        let items = (0..<60).map { Self.item($0, at: Int64($0) * 60_000, recipient: "c\($0 % 4)") }
        var seen: [DeliveryItem] = []
        _ = NotificationDelivery.deliver(
            items, schedule: .production, chaos: DeliveryChaos(reorderWindowMilliseconds: Self.hour), seed: 11
        ) { request in
            seen.append(request.item)
            return .status(200)
        }
        #expect(seen.count == 60 && seen != items)
        for recipient in ["c0", "c1", "c2", "c3"] {
            #expect(seen.filter { $0.recipient == recipient } == items.filter { $0.recipient == recipient })
        }
    }

    @Test func failFirstAttemptsNeverReachTheHandlerAndAreRecordedAsOther() {
        var seen: [Int] = []
        let report = NotificationDelivery.deliver(
            [Self.item(1)], schedule: .production, chaos: DeliveryChaos(failFirstAttempts: 2), seed: 1
        ) { request in
            seen.append(request.attempt)
            return .status(200)
        }
        #expect(seen == [3])
        #expect(Self.hours(report) == [0, 1, 13])
        #expect(report.log.map(\.sendAttemptResult) == [.other, .other, .success])
        #expect(report.log.map(\.chaos) == ["failFirst", "failFirst", nil])
    }

    @Test func concurrentRequestsRecordedInAnyOrderGiveTheSameReport() {
        let items = (0..<30).map { Self.item($0, at: Int64($0 / 3) * 60_000) }
        func answer(_ request: DeliveryRequest) -> DeliveryOutcome {
            request.index % 4 == 0 && request.attempt < 3 ? .status(500) : .status(200)
        }
        let sequential = NotificationDelivery.deliver(items, schedule: .production, seed: 2, handler: answer)
        var delivery = NotificationDelivery(items: items, schedule: .production, seed: 2)
        while !delivery.isFinished {
            let batch = delivery.nextRequests(limit: 4)
            #expect(batch.count <= 4)
            for request in batch.reversed() { delivery.record(answer(request), for: request) }
        }
        let batched = delivery.report
        #expect(batched.notifications == sequential.notifications)
        #expect(Set(batched.log) == Set(sequential.log))
    }

    @Test func logLinesAreCanonicalJSON() {
        let entry = DeliveryLogEntry(
            notificationUUID: "u", recipient: "alice", notificationType: "SUBSCRIBED", subtype: "INITIAL_BUY",
            attempt: 2, instant: Self.t0, httpStatus: 500, sendAttemptResult: .unsuccessfulHTTPResponseCode,
            wallLatencyMicroseconds: 1234, chaos: nil)
        #expect(
            CanonicalJSON.string(entry.json)
                == #"{"at":"2026-03-01T09:00:00Z","attempt":2,"httpStatus":500,"instant":1772355600000,"notificationType":"SUBSCRIBED","notificationUUID":"u","recipient":"alice","sendAttemptResult":"UNSUCCESSFUL_HTTP_RESPONSE_CODE","subtype":"INITIAL_BUY","wallLatencyMs":1.234}"#
        )
    }

    @Test func deliveryReadsTheStoreAndChangesNothing() throws {
        let run = try ScenarioRunner.run(
            try ScenarioDecoder(file: "family-stop-sharing.yaml").decode(
                try PackagePaths.read(PackagePaths.scenarios.appendingPathComponent("family-stop-sharing.yaml"))))
        let before = run.store.notifications
        let report = NotificationDelivery.deliver(run) { _ in .status(200) }
        #expect(run.store.notifications == before)
        #expect(report.log.map(\.notificationUUID) == before.map(\.notificationUUID))
        #expect(report.notifications.map(\.item.body) == RunOutput.jsonl(run).split(separator: "\n").map(String.init))
    }

    @Test func chaosValuesOutOfRangeAreNamed() {
        #expect(DeliveryChaos(duplicateRate: 2).problem != nil)
        #expect(DeliveryChaos(reorderWindowMilliseconds: -1).problem != nil)
        #expect(DeliveryChaos(reorderWindowMilliseconds: 366 * 86_400_000).problem != nil)
        #expect(DeliveryChaos(failFirstAttempts: -1).problem != nil)
        #expect(DeliveryChaos.none.problem == nil)
    }
}
