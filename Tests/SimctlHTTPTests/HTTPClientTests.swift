import Foundation
import SubscriptionSimulator
import Testing

@testable import SimctlHTTP
import SimctlHTTPDelivery

/// The client against a receiver on loopback. Timeouts are short and only ever bound a wait; no test asserts a
/// duration.
@Suite struct HTTPClientTests {
    static func client(_ receiver: LoopbackReceiver, timeout: Int64 = 5000) throws -> HTTPClient {
        HTTPClient(endpoint: try HTTPEndpoint(url: receiver.url(path: "/hook")), timeoutMilliseconds: timeout)
    }

    @Test func postsTheBodyAsJSONAndReusesTheConnection() throws {
        let seen = Recorder()
        let receiver = try LoopbackReceiver { message in
            seen.add(message)
            return .respond(status: 200, body: "")
        }
        defer { receiver.stop() }
        let client = try Self.client(receiver)
        for n in 0..<3 {
            let result = client.post(Array("{\"n\":\(n)}".utf8))
            #expect(HTTPDelivery.outcome(result) == .success)
        }
        #expect(client.connectionsOpened == 1)
        let messages = seen.messages
        #expect(messages.map { String(decoding: $0.body, as: UTF8.self) } == ["{\"n\":0}", "{\"n\":1}", "{\"n\":2}"])
        #expect(messages[0].headers["Content-Type"] == "application/json")
        #expect(
            messages[0].startLine == .request(method: "POST", target: "/hook", version: HTTPVersion(major: 1, minor: 1))
        )
    }

    @Test func aRefusedConnectionIsASocketIssue() throws {
        let receiver = try LoopbackReceiver { _ in .respond(status: 200, body: "") }
        let url = receiver.url()
        receiver.stop()
        let client = HTTPClient(endpoint: try HTTPEndpoint(url: url))
        let result = client.post([])
        #expect(HTTPDelivery.outcome(result) == .socketIssue)
    }

    @Test func aServerThatNeverAnswersIsCutOffAtTheTimeout() throws {
        let receiver = try LoopbackReceiver { _ in .hold }
        defer { receiver.stop() }
        let result = try Self.client(receiver, timeout: 200).post([])
        #expect(result == .failure(.timedOut))
        #expect(HTTPDelivery.outcome(result) == .timedOut)
    }

    @Test func aCloseBeforeAnyAnswerIsNoResponse() throws {
        let receiver = try LoopbackReceiver { _ in .close }
        defer { receiver.stop() }
        #expect(HTTPDelivery.outcome(try Self.client(receiver).post([])) == .noResponse)
    }

    @Test func aCloseInsideTheAnswerIsPrematureClose() throws {
        let receiver = try LoopbackReceiver { _ in .raw("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc") }
        defer { receiver.stop() }
        #expect(HTTPDelivery.outcome(try Self.client(receiver).post([])) == .prematureClose)
    }

    @Test func aMalformedAnswerIsInvalidResponse() throws {
        let receiver = try LoopbackReceiver { _ in .raw("hello there\r\n\r\n") }
        defer { receiver.stop() }
        #expect(HTTPDelivery.outcome(try Self.client(receiver).post([])) == .invalidResponse)
    }

    @Test func anAnswerRunningToTheCloseIsComplete() throws {
        let receiver = try LoopbackReceiver { _ in .raw("HTTP/1.1 201 Created\r\n\r\nok") }
        defer { receiver.stop() }
        let result = try Self.client(receiver).post([])
        #expect(HTTPDelivery.outcome(result) == .success)
        #expect(try result.get().body == Array("ok".utf8))
    }

    @Test func anUnsuccessfulStatusIsRecordedWithItsCode() throws {
        let receiver = try LoopbackReceiver { _ in .respond(status: 401, body: "no") }
        defer { receiver.stop() }
        let result = try Self.client(receiver).post([])
        #expect(try result.get().status == 401)
        #expect(HTTPDelivery.outcome(result) == .unsuccessfulHTTPResponseCode)
    }

    @Test func aKeptAliveConnectionTheServerClosedIsReplacedTransparently() throws {
        let count = Recorder()
        // Answers, then closes every connection after its answer (without saying Connection: close).
        let receiver = try LoopbackReceiver { message in
            count.add(message)
            return .raw("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        }
        defer { receiver.stop() }
        let client = try Self.client(receiver)
        #expect(HTTPDelivery.outcome(client.post([1])) == .success)
        Thread.sleep(forTimeInterval: 0.05)  // let the close arrive (either way the second post must succeed)
        #expect(HTTPDelivery.outcome(client.post([2])) == .success)
        #expect(count.messages.count == 2)
    }

    @Test func anOversizedAnswerIsInvalid() throws {
        let receiver = try LoopbackReceiver { _ in .respond(status: 200, body: String(repeating: "x", count: 2 << 20)) }
        defer { receiver.stop() }
        #expect(HTTPDelivery.outcome(try Self.client(receiver).post([])) == .invalidResponse)
    }
}

@Suite struct HTTPDeliveryTests {
    static func items(_ count: Int) -> [DeliveryItem] {
        (0..<count).map {
            DeliveryItem(
                notificationUUID: "u\($0)", recipient: "c\($0)",
                instant: Instant(millisecondsSince1970: 1_772_355_600_000 + Int64($0) * 1000),
                notificationType: "DID_RENEW", subtype: nil, body: "{\"signedPayload\":\"\($0)\"}")
        }
    }

    @Test(arguments: [1, 3])
    func httpDeliveryRetriesOnTheScheduleOverAnyNumberOfConnections(connections: Int) throws {
        let counts = Counter()
        let receiver = try LoopbackReceiver { message in
            counts.increment(message.body) == 1 ? .respond(status: 500, body: "") : .respond(status: 204, body: "")
        }
        defer { receiver.stop() }
        let http = HTTPDelivery(endpoint: try HTTPEndpoint(url: receiver.url()), connections: connections)
        defer { http.close() }
        let report = http.deliver(Self.items(10), schedule: .production, seed: 1)
        #expect(report.allDelivered)
        #expect(
            report.notifications.allSatisfy {
                $0.sendAttempts.map(\.sendAttemptResult) == [.unsuccessfulHTTPResponseCode, .success]
            })
        #expect(report.log.allSatisfy { $0.wallLatencyMicroseconds != nil })
        #expect(report.log.map(\.httpStatus) == Array(repeating: 500, count: 10) + Array(repeating: 204, count: 10))
    }
}

/// Requests a receiver got, from any of its threads.
final class Recorder: @unchecked Sendable {
    let lock = NSLock()
    var stored: [HTTPMessage] = []

    func add(_ message: HTTPMessage) {
        lock.lock()
        stored.append(message)
        lock.unlock()
    }

    var messages: [HTTPMessage] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    var bodies: [String] { messages.map { String(decoding: $0.body, as: UTF8.self) } }
}
