import Foundation
import SubscriptionSimulator
import Testing

@testable import SimctlHTTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A client that asks for a large answer and does not read it holds only its own connection (docs/reliability.md,
/// "Bounds"): the store's lock is held only while an answer's snapshot is taken, never while it is built or sent, so
/// other clients' reads and changes are answered meanwhile. Checked by the order of events: every other answer
/// arrives while the slow client has read nothing of its own.
@Suite(.serialized) struct SlowReaderTests {
    /// 600 customers with names of 1,000 bytes, each buying a monthly plan at the start: after two years, a picture of
    /// about 1.3 MB, more than the slow client's 4 KB receive buffer and the server's 16 KB default send buffer hold.
    static func scenario() -> String {
        var text = """
            name: Many long names
            start: 2026-03-01T09:00:00Z
            app:
              bundleId: com.example.nightsky
              appAppleId: 1234567890
            products:
              - id: com.example.nightsky.monthly
                type: autoRenewable
                group: nightsky.pro
                period: P1M
                price: 9.99
            timeline:

            """
        for i in 0..<600 {
            let name = "customer-\(i)-" + String(repeating: "x", count: 1000 - "customer-\(i)-".count)
            text += "  - { at: 0, purchase: { customer: \(name), product: com.example.nightsky.monthly } }\n"
        }
        return text
    }

    @Test func otherRequestsAreAnsweredWhileASlowReaderHoldsALargeAnswer() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simctl-slow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("many.yaml").path
        try Self.scenario().write(toFile: path, atomically: true, encoding: .utf8)
        let serve = try ServeProcess([path])
        let fast = try TestConnection(port: serve.port)
        defer { fast.close() }
        #expect(fast.request("POST", "/simctl/v1/advance", body: #"{"by": "P2Y"}"#)?.status == 200)

        // The slow reader: asks for the largest state page (a large answer: the picture is bounded far below a
        // megabyte since issue 49; the state is paged, `limit` at most 1,000) with a small receive buffer, then reads
        // nothing.
        let slow = try TestConnection(port: serve.port)
        defer { slow.close() }
        var small: Int32 = 4096
        _ = setsockopt(slow.socket.descriptor, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let ask = "GET /simctl/v1/state?limit=1000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        guard case .success = slow.socket.send(Array(ask.utf8), deadline: Deadline(millisecondsFromNow: 10_000)) else {
            Issue.record("could not send the slow request")
            return
        }

        // Meanwhile: reads, a second state in full, and a change, all answered.
        let picture = try #require(fast.request("GET", "/simctl/v1/state?limit=1000"))
        #expect(picture.status == 200)
        #expect(picture.body.count > 1_000_000, "the state is large (\(picture.body.count) bytes)")
        #expect(picture.json.value(at: "nextAfter") == nil, "every customer on the one page")
        #expect(fast.request("GET", "/simctl/v1/timeline.svg")?.status == 200)
        #expect(fast.request("GET", "/simctl/v1/state")?.status == 200)
        #expect(fast.request("POST", "/simctl/v1/advance", body: #"{"by": "1d"}"#)?.status == 200)
        #expect(fast.request("GET", "/simctl/v1/deliveries")?.status == 200)

        // Only now does the slow reader read: its answer is whole, the state as it was when asked.
        var parser = HTTPMessageParser(role: .response, limits: HTTPLimits(maximumBodyBytes: 256 << 20))
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var message: HTTPMessage?
        while message == nil {
            switch slow.socket.receive(into: &buffer, deadline: Deadline(millisecondsFromNow: 60_000)) {
            case .success(let count):
                parser.append(buffer[0..<count])
                message = try parser.next()
            case .failure(let failure):
                Issue.record("the slow reader's answer ended early: \(failure)")
                return
            }
        }
        #expect(message?.status == 200)
        #expect(message?.body == picture.body)
        #expect(serve.stop() == 0)
    }
}
