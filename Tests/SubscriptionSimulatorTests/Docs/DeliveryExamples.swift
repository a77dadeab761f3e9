// The Swift examples of docs/delivery.md, compiled and run. DocExamplesTests checks that every ```swift block of the
// guide appears verbatim between a `docs:begin` and `docs:end` marker in this folder.
import Foundation
import SubscriptionSimulator
import Testing
import XCTest

// docs:begin delivery-swift-testing
/// Your webhook's logic, called with the exact POST body the App Store sends.
struct Webhook {
    var processed: [String: String] = [:]  // notificationUUID -> notificationType

    /// Answers 200 for every body it understands; a repeat of a processed notification changes nothing.
    mutating func receive(_ body: String) throws -> Int {
        let payload = try Self.payload(ofBody: body)
        let uuid = payload["notificationUUID"] as! String
        if processed[uuid] == nil { processed[uuid] = payload["notificationType"] as? String }
        return 200
    }

    /// The signedPayload's claims (a real server verifies the signature first).
    static func payload(ofBody body: String) throws -> [String: Any] {
        let outer = try JSONSerialization.jsonObject(with: Data(body.utf8)) as! [String: Any]
        var part = (outer["signedPayload"] as! String).split(separator: ".")[1]
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while part.count % 4 != 0 { part += "=" }
        return try JSONSerialization.jsonObject(with: Data(base64Encoded: part)!) as! [String: Any]
    }
}

let renewalScenario = """
    name: Two renewals
    start: 2026-03-01T09:00:00Z
    seed: 21
    app: { bundleId: com.example.app }
    products:
      - { id: com.example.monthly, type: autoRenewable, group: pro, period: P1M, price: 4.99 }
    timeline:
      - at: 0
        purchase: { customer: alice, product: com.example.monthly }
    until: P2M
    """

@Test func theWebhookIsIdempotentUnderDuplicatesAndRetries() throws {
    let run = try ScenarioRunner.run(try ScenarioDecoder(file: "renewals.yaml").decode(renewalScenario))
    var webhook = Webhook()
    var calls = 0
    let chaos = DeliveryChaos(duplicateRate: 1, failFirstAttempts: 1)  // every one late, and sent twice
    let report = try NotificationDelivery.deliver(run, mode: .production, chaos: chaos) { request in
        calls += 1
        return .status(try webhook.receive(request.body))
    }
    #expect(report.allDelivered)
    #expect(calls == 2 * run.store.notifications.count)
    #expect(webhook.processed.count == run.store.notifications.count)
    #expect(webhook.processed.values.sorted() == ["DID_RENEW", "DID_RENEW", "SUBSCRIBED"])
}
// docs:end

// docs:begin delivery-xctest
final class WebhookOutageTests: XCTestCase {
    func testAOneDayOutageIsCoveredByAppleRetries() throws {
        let run = try ScenarioRunner.run(try ScenarioDecoder(file: "renewals.yaml").decode(renewalScenario))
        let outageEnds = run.scenario.start.adding(.days(1))
        let report = NotificationDelivery.deliver(run, mode: .production) { request in
            request.instant < outageEnds ? .status(503) : .status(200)  // down for the first day
        }
        XCTAssertTrue(report.allDelivered)
        let first = report.notifications[0].sendAttempts
        XCTAssertEqual(
            first.map(\.sendAttemptResult),
            [.unsuccessfulHTTPResponseCode, .unsuccessfulHTTPResponseCode, .unsuccessfulHTTPResponseCode, .success])
        XCTAssertEqual(run.scenario.start.milliseconds(to: first[3].attemptDate), 37 * 3_600_000)  // +1 h +12 h +24 h

        let sandbox = NotificationDelivery.deliver(run, mode: .sandbox) { request in
            request.instant < outageEnds ? .status(503) : .status(200)
        }
        XCTAssertEqual(sandbox.undelivered.count, 1, "the sandbox tries once: the purchase is lost")
    }
}
// docs:end
