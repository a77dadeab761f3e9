import Foundation
import SimctlCommand
import SimctlHTTP
import SubscriptionSimulator
import Testing

/// Every HTTP request simctl's own client sends is one logged attempt (docs/reliability.md, "One request, one
/// attempt"): a webhook that reads a request on a kept-alive connection and closes it without answering gets no
/// silent second copy; the webhook's count of requests equals the delivery log's count of attempts.
@Suite struct DeliveryAttemptCountTests {
    /// Counts the requests a receiver got.
    final class Count: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        private var perBody: [String: Int] = [:]
        func add(_ body: String) {
            lock.lock()
            value += 1
            perBody[body, default: 0] += 1
            lock.unlock()
        }
        var total: Int {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
    }

    /// A receiver that answers the odd requests of each connection and drops the even ones (reads the request, then
    /// closes the connection without a byte of answer).
    static func droppingReceiver(_ count: Count) throws -> LoopbackReceiver {
        try LoopbackReceiver(connectionHandler: { message, onConnection in
            count.add(String(decoding: message.body, as: UTF8.self))
            return onConnection % 2 == 0 ? .close : .respond(status: 200, body: "")
        })
    }

    @Test(arguments: [1, 4])
    func runDeliverSendsExactlyTheLoggedAttempts(connections: Int) throws {
        let count = Count()
        let receiver = try Self.droppingReceiver(count)
        defer { receiver.stop() }
        let log = DeliveryEndToEndTests.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: log) }
        let output = Simctl.main([
            "run",
            DeliveryEndToEndTests.root.appendingPathComponent("Scenarios/family-billing-grace-recovery.yaml").path,
            "--format", "jsonl", "--deliver", receiver.url(path: "/asn"), "--delivery-log", log,
            "--deliver-connections", String(connections),
        ])
        #expect(output.exitCode == 0, "\(output.stderr)")
        let attempts = try DeliveryEndToEndTests.log(log)
        #expect(count.total == attempts.count, "the webhook got \(count.total) requests, the log has \(attempts.count)")
        // Some requests were dropped, and the log says so: no attempt hides a failure.
        let failed = attempts.filter { ($0["sendAttemptResult"] as? String) != "SUCCESS" }
        #expect(!failed.isEmpty)
        #expect(failed.allSatisfy { ($0["sendAttemptResult"] as? String) == "NO_RESPONSE" })
    }

    /// The client itself: a request whose connection the server closes after reading it fails once and is not sent
    /// again; the next request goes out on a fresh connection.
    @Test func theClientNeverResendsARequestTheServerDropped() throws {
        let count = Count()
        let receiver = try Self.droppingReceiver(count)
        defer { receiver.stop() }
        let client = HTTPClient(endpoint: try HTTPEndpoint(url: receiver.url()), timeoutMilliseconds: 5000)
        defer { client.close() }
        var results: [Bool] = []
        for i in 0..<6 {
            let result = client.post(Array("request \(i)".utf8))
            if case .success(let response) = result {
                results.append(response.status == 200)
            } else {
                results.append(false)
            }
        }
        #expect(count.total == 6, "one request on the wire per call")
        #expect(results == [true, false, true, false, true, false])
        #expect(client.connectionsOpened == 3)
    }

    /// A kept-alive connection the server closed while idle is replaced before the request is sent (nothing fails).
    @Test func anIdleConnectionTheServerClosedIsReplacedBeforeSending() throws {
        let count = Count()
        let receiver = try LoopbackReceiver(connectionHandler: { message, _ in
            count.add(String(decoding: message.body, as: UTF8.self))
            // Answers, then closes the connection (as an idle timeout would), without saying so in a header.
            return .raw("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        })
        defer { receiver.stop() }
        let client = HTTPClient(endpoint: try HTTPEndpoint(url: receiver.url()), timeoutMilliseconds: 5000)
        defer { client.close() }
        for i in 0..<3 {
            if i > 0 { Thread.sleep(forTimeInterval: 0.05) }  // lets the close arrive; never bounds a wait
            let result = client.post(Array("request \(i)".utf8))
            guard case .success(let response) = result else {
                Issue.record("request \(i): \(result)")
                continue
            }
            #expect(response.status == 200)
        }
        #expect(count.total == 3)
    }

    /// `--delivery-log` into a full device: exit code 74, the log named with the system's reason.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full (Linux)"))
    func aDeliveryLogThatCannotBeWrittenExits74() throws {
        let receiver = try LoopbackReceiver { _ in .respond(status: 200, body: "") }
        defer { receiver.stop() }
        let output = Simctl.main([
            "run", DeliveryEndToEndTests.scenario, "--deliver", receiver.url(), "--delivery-log", "/dev/full",
        ])
        #expect(output.exitCode == 74, "\(output.stderr)")
        #expect(
            output.stderr.contains("cannot write the delivery log '/dev/full': No space left on device"),
            "\(output.stderr)")
        // The binary too, with its standard output fine.
        let binary = try BinaryRun.run([
            "run", DeliveryEndToEndTests.scenario, "--deliver", receiver.url(), "--delivery-log", "/dev/full",
        ])
        #expect(binary.status == 74, "\(binary.stderr)")
    }
}
