import Testing
@testable import SubscriptionSimulator

/// The one delivery pump (`NotificationDelivery.pump`), used by `simctl run --deliver`, `simctl serve` and the
/// library's `deliver`.
@Suite struct DeliveryPumpTests {
    static func item(_ n: Int, at offset: Int64, recipient: String? = "alice") -> DeliveryItem {
        DeliveryItem(
            notificationUUID: "n\(n)", recipient: recipient,
            instant: Instant(millisecondsSince1970: 1_000_000 + offset), notificationType: "DID_RENEW", subtype: nil,
            body: #"{"signedPayload":"h.p\#(n).s"}"#)
    }

    @Test func itMakesOnlyTheAttemptsDueByItsBound() {
        var delivery = NotificationDelivery(
            items: [Self.item(1, at: 0), Self.item(2, at: 3_600_000)], schedule: .production, seed: 1)
        var made: [String] = []
        let count = delivery.pump(
            notAfter: Instant(millisecondsSince1970: 1_000_000 + 60_000),
            over: ClosureTransport {
                made.append($0.item.notificationUUID)
                return .status(200)
            }
        ) { (_) throws(Never) in }
        #expect(count == 1 && made == ["n1"])
        #expect(delivery.pendingAttempts == 1)
        delivery.pump(over: ClosureTransport { _ in .status(200) }) { (_) throws(Never) in }
        #expect(delivery.isFinished && delivery.report.allDelivered)
    }

    @Test func itReportsEveryLogLineInOrderChaosFailuresIncluded() {
        let chaos = DeliveryChaos(failFirstAttempts: 1)
        var delivery = NotificationDelivery(items: [Self.item(1, at: 0)], schedule: .production, chaos: chaos, seed: 1)
        var lines: [DeliveryLogEntry] = []
        let requests = delivery.pump(over: ClosureTransport { _ in .status(200) }) { (entry) throws(Never) in
            lines.append(entry)
        }
        #expect(requests == 1, "the chaos failure makes no request")
        #expect(lines == delivery.log)
        #expect(lines.map(\.chaos) == ["failFirst", nil])
    }

    @Test func aFailureThrownWhileRecordingStopsIt() {
        struct Full: Error {}
        var delivery = NotificationDelivery(
            items: [Self.item(1, at: 0), Self.item(2, at: 1)], schedule: .production, seed: 1)
        #expect(throws: Full.self) {
            try delivery.pump(over: ClosureTransport { _ in .status(200) }) { (_) throws(Full) in throw Full() }
        }
        #expect(delivery.log.count == 1)
    }

    @Test func anItemFromANotificationCarriesItsSignedPayload() throws {
        let item = Self.item(7, at: 0)
        #expect(item.signedPayload == "h.p7.s")
        #expect(
            DeliveryItem(
                notificationUUID: "x", recipient: nil, instant: item.instant, notificationType: "TEST",
                subtype: nil, body: "not a post body"
            ).signedPayload == "")
    }
}
