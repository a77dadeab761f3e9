import Foundation
import SimctlCommand
import SimctlHTTP
import SimctlURLSessionDelivery
import SubscriptionSimulator
import Testing

/// The HTTPS transport (`--deliver https://...`, `HTTPSDelivery` through URLSession): its rule from failures to Apple's
/// `sendAttemptResult`, its requests, deadline and concurrency (watched over plain http on a loopback receiver), and
/// `simctl run` against a local HTTPS server whose certificate is not trusted. Delivery to a trusted server is checked
/// by Tests/Delivery/https_check.sh in CI (it adds a throwaway CA to the system store).
@Suite struct HTTPSDeliveryTests {
    /// First attempts of notifications with these bodies, handed out together.
    static func requests(_ bodies: [String]) -> [DeliveryRequest] {
        let items = bodies.enumerated().map { index, body in
            DeliveryItem(
                notificationUUID: "n\(index)", recipient: nil, instant: Instant(millisecondsSince1970: 0),
                notificationType: "TEST", subtype: nil, body: body)
        }
        var delivery = NotificationDelivery(items: items, schedule: .sandbox, seed: 1)
        return delivery.nextRequests(limit: bodies.count)
    }

    /// The first attempt of a notification with this body.
    static func request(_ body: String) -> DeliveryRequest { requests([body])[0] }

    @Test func failuresMapToApplesValues() {
        let cases: [(Int, String, SendAttemptResult)] = [
            (-1001, "", .timedOut),
            (-1202, "", .tlsIssue), (-1200, "", .tlsIssue), (-1203, "", .tlsIssue),
            (-1004, "Failed to connect to 127.0.0.1 port 1: Couldn't connect to server", .socketIssue),
            (-1003, "", .socketIssue),
            (-1005, "Recv failure: Connection reset by peer", .noResponse),
            (-1011, "Empty reply from server", .noResponse),
            (-1002, "Received HTTP/0.9 when not allowed", .invalidResponse),
            (-1007, "", .circularRedirect),
            // What FoundationNetworking on Linux gives (NSURLErrorUnknown and libcurl's text), tried on Debian 12.
            (-1, "SSL certificate problem: self-signed certificate", .tlsIssue),
            (-1, "SSL certificate problem: unable to get local issuer certificate", .tlsIssue),
            (-1, "OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong version number", .tlsIssue),
            (-1, "SSL: no alternative certificate subject name matches target host name 'x'", .tlsIssue),
            (-1, "transfer closed with 97 bytes remaining to read", .prematureClose),
            (-1, "Weird server reply", .invalidResponse),
            (-1, "something else", .other),
            (-3000, "", .other),
        ]
        for (code, text, expected) in cases {
            #expect(HTTPSDelivery.sendAttemptResult(errorCode: code, description: text) == expected, "\(code) \(text)")
        }
    }

    @Test func theURLIsAnHTTPSURL() throws {
        #expect(
            try HTTPSDelivery.endpoint("https://example.com/asn?x=1#f").absoluteString == "https://example.com/asn?x=1")
        #expect(try HTTPSDelivery.endpoint("https://[::1]:8443/").port == 8443)
        for bad in ["http://example.com/", "https://", "https://user@example.com/", "https://example.com/a b"] {
            #expect(throws: HTTPSEndpointError.self, "\(bad)") { try HTTPSDelivery.endpoint(bad) }
        }
        let output = Simctl.main(["run", DeliveryEndToEndTests.scenario, "--deliver", "https://user@example.com/"])
        #expect(output.exitCode == ExitCode.usage)
        #expect(output.stderr.contains("user information in the URL is not supported"), "\(output.stderr)")
    }

    /// Bodies byte for byte, the http transport's headers, and a redirect that is not followed.
    @Test func requestsCarryTheBodyAndHeadersAndRedirectsAreNotFollowed() throws {
        let seen = Recorder()
        let receiver = try LoopbackReceiver { message in
            seen.add(message)
            return message.startLine
                == .request(method: "POST", target: "/moved", version: HTTPVersion(major: 1, minor: 1))
                ? .raw("HTTP/1.1 302 Found\r\nLocation: /asn\r\nContent-Length: 0\r\n\r\n")
                : .respond(status: 200, body: "")
        }
        defer { receiver.stop() }
        let bodies = DeliveryEndToEndTests.jsonl(DeliveryEndToEndTests.scenario)
        let transport = HTTPSDelivery(url: URL(string: receiver.url(path: "/asn"))!)
        defer { transport.close() }
        for body in bodies {
            let outcome = transport.attempt([Self.request(body)])[0]
            #expect(outcome.sendAttemptResult == .success && outcome.httpStatus == 200)
        }
        #expect(seen.bodies == bodies)
        for message in seen.messages {
            #expect(
                message.startLine == .request(method: "POST", target: "/asn", version: HTTPVersion(major: 1, minor: 1)))
            #expect(message.headers["Content-Type"] == "application/json")
            #expect(message.headers["User-Agent"] == "simctl" && message.headers["Accept"] == "*/*")
            #expect(message.headers["Host"] == "127.0.0.1:\(receiver.port)")
        }
        let moved = HTTPSDelivery(url: URL(string: receiver.url(path: "/moved"))!)
        defer { moved.close() }
        let outcome = moved.attempt([Self.request(bodies[0])])[0]
        #expect(outcome.sendAttemptResult == .unsuccessfulHTTPResponseCode && outcome.httpStatus == 302)
        #expect(seen.messages.count == bodies.count + 1, "the redirect was not followed")
    }

    /// The deadline is the option's to the millisecond (FoundationNetworking's own rounds down to whole seconds).
    @Test func anAnswerThatNeverComesIsTimedOutAtTheDeadline() throws {
        let receiver = try LoopbackReceiver { _ in .hold }
        defer { receiver.stop() }
        let transport = HTTPSDelivery(url: URL(string: receiver.url())!, timeoutMilliseconds: 400)
        defer { transport.close() }
        let outcome = transport.attempt([Self.request("{}")])[0]
        #expect(outcome.sendAttemptResult == .timedOut && outcome.httpStatus == nil)
        let latency = outcome.wallLatencyMicroseconds ?? 0
        #expect(latency >= 400_000 && latency < 3_000_000, "\(latency)")
    }

    @Test func brokenAnswersGetTheHTTPTransportsValues() throws {
        let cases: [(ReceiverReply, SendAttemptResult)] = [
            (.close, .noResponse),
            (.raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc"), .prematureClose),
            (.respond(status: 503, body: "busy"), .unsuccessfulHTTPResponseCode),
        ]
        for (reply, expected) in cases {
            let receiver = try LoopbackReceiver { _ in reply }
            defer { receiver.stop() }
            let transport = HTTPSDelivery(url: URL(string: receiver.url())!, timeoutMilliseconds: 2000)
            defer { transport.close() }
            #expect(transport.attempt([Self.request("{}")])[0].sendAttemptResult == expected, "\(reply)")
        }
        let down = try LoopbackReceiver { _ in .close }
        let url = down.url()
        down.stop()
        let transport = HTTPSDelivery(url: URL(string: url)!)
        defer { transport.close() }
        #expect(transport.attempt([Self.request("{}")])[0].sendAttemptResult == .socketIssue)
    }

    /// `--deliver-connections 4`: four attempts are in flight together (each waits until all four have arrived).
    @Test func attemptsHandedOutTogetherAreInFlightTogether() throws {
        let arrived = NSCondition()
        nonisolated(unsafe) var count = 0
        let receiver = try LoopbackReceiver { _ in
            arrived.lock()
            count += 1
            arrived.broadcast()
            let deadline = Date(timeIntervalSinceNow: 5)
            while count < 4 && arrived.wait(until: deadline) {}
            let all = count >= 4
            arrived.unlock()
            return .respond(status: all ? 200 : 504, body: "")
        }
        defer { receiver.stop() }
        let transport = HTTPSDelivery(url: URL(string: receiver.url())!, timeoutMilliseconds: 8000, connections: 4)
        defer { transport.close() }
        let outcomes = transport.attempt(Self.requests((0..<4).map { "{\"n\":\($0)}" }))
        #expect(outcomes.map(\.sendAttemptResult) == Array(repeating: .success, count: 4))
    }

    /// A local HTTPS server (Python's http.server with ssl) whose self-signed certificate, made by `openssl req`, is
    /// not in the system store: every attempt is TLS_ISSUE, nothing reaches the server, and the run exits 2.
    @Test(.enabled(if: Tools.available("openssl") && Tools.available("python3")))
    func anUntrustedCertificateGivesTLSIssueAndExitCode2() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("simctl-https-\(UUIDText.next())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let openssl = try Tools.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
                "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", folder.appendingPathComponent("key.pem").path,
                "-out", folder.appendingPathComponent("cert.pem").path,
            ])
        #expect(openssl == 0)
        let bodies = folder.appendingPathComponent("bodies").path
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = [
            "python3", DeliveryEndToEndTests.root.appendingPathComponent("Tests/Delivery/https_receiver.py").path,
            folder.appendingPathComponent("cert.pem").path, folder.appendingPathComponent("key.pem").path, bodies,
        ]
        let out = Pipe()
        server.standardOutput = out
        try server.run()
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let port = try #require(Tools.firstLine(out.fileHandleForReading))
        let log = DeliveryEndToEndTests.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: log) }
        let output = Simctl.main([
            "run", DeliveryEndToEndTests.scenario, "--deliver", "https://127.0.0.1:\(port)/asn", "--delivery-log", log,
            "--deliver-timeout", "1m",  // a handshake on a loaded machine is never cut short into TIMED_OUT
        ])
        #expect(output.exitCode == ExitCode.undelivered, "\(output.stderr)")
        let count = DeliveryEndToEndTests.jsonl(DeliveryEndToEndTests.scenario).count
        #expect(output.stderr.contains("0 of \(count) notifications delivered in \(6 * count) attempts"))
        #expect(output.stderr.contains("TLS_ISSUE"))
        let entries = try DeliveryEndToEndTests.log(log)
        #expect(entries.count == 6 * count)
        let results = entries.map { "\($0["sendAttemptResult"] ?? "-") \($0["httpStatus"] ?? "-")" }
        #expect(Set(results) == ["TLS_ISSUE -"], "\(results)")
        #expect(((try? String(contentsOfFile: bodies, encoding: .utf8)) ?? "").isEmpty, "nothing was sent")
        // docs/delivery.md's HTTPS section shows this run's first log line and the start of its summary (three lines).
        let doc = DeliveryDocsTests.blocks("text").map { $0.replacingOccurrences(of: ":8443/", with: ":\(port)/") }
        let logLine = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")[0]
        let withoutLatency = { (line: String) in
            line.replacingOccurrences(of: #","wallLatencyMs":[0-9.]+"#, with: "", options: .regularExpression)
        }
        #expect(doc.contains { withoutLatency($0) == withoutLatency(String(logLine)) + "\n" }, "\(logLine)")
        let summary = try #require(doc.first { $0.hasPrefix("delivery to https://") })
        let lines = summary.split(separator: "\n").map { $0.replacingOccurrences(of: ", ...", with: "") }
        // The counts, how the notifications ended, and the start of the first undelivered one.
        #expect(lines.count == 3 && output.stderr.hasPrefix(lines.joined(separator: "\n")), "\(output.stderr)")
    }
}

/// External tools for the HTTPS checks.
enum Tools {
    /// Whether `name` is on the PATH.
    static func available(_ name: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
        }
    }

    /// Runs `name` with `arguments` (output discarded) and returns its exit status.
    static func run(_ name: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [name] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The first line `handle` gives, without its newline; nil when it ends first.
    static func firstLine(_ handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while true {
            let chunk = handle.readData(ofLength: 1)
            guard let byte = chunk.first else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
