import Foundation
import SubscriptionSimulator
import Testing

@testable import SimctlHTTP

/// `simctl serve --deliver` against a webhook that drops every second request of each kept-alive connection: the
/// webhook's count of requests equals the delivery log's count of attempts (docs/reliability.md, "One request, one
/// attempt"), with 1 and 4 connections.
@Suite(.serialized) struct DroppedRequestServeTests {
    final class Count: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func add() {
            lock.lock()
            value += 1
            lock.unlock()
        }
        var total: Int {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
    }

    @Test(arguments: [1, 4])
    func serveDeliverSendsExactlyTheLoggedAttempts(connections: Int) throws {
        let count = Count()
        let receiver = try LoopbackReceiver(connectionHandler: { _, onConnection in
            count.add()
            return onConnection % 2 == 0 ? .close : .respond(status: 200, body: "")
        })
        defer { receiver.stop() }
        let serve = try ServeProcess([
            repositoryRoot + "/Scenarios/family-billing-grace-recovery.yaml", "--deliver", receiver.url(path: "/asn"),
            "--deliver-connections", String(connections),
        ])
        let connection = try TestConnection(port: serve.port)
        defer { connection.close() }
        #expect(connection.request("POST", "/simctl/v1/advance", body: #"{"by": "P3M"}"#)?.status == 200)
        let log = try CanonicalJSON.parse(
            try #require(connection.request("GET", "/simctl/v1/deliveries")).text, allowFractions: true)
        guard case .array(let attempts)? = log.value(at: "attempts") else {
            Issue.record("no delivery log")
            return
        }
        #expect(count.total == attempts.count, "the webhook got \(count.total) requests, the log has \(attempts.count)")
        let results = attempts.compactMap { $0.value(at: "sendAttemptResult")?.stringValue }
        #expect(results.contains("NO_RESPONSE"), "the dropped requests are logged as attempts that failed")
        #expect(serve.stop() == 0)
    }
}
