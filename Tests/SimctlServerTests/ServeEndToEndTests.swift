import Foundation
import SubscriptionSimulator
import Testing

@testable import SimctlHTTP

/// One keep-alive connection that sends requests as bytes and reads answers with the project's parser.
final class TestConnection {
    let socket: TCPSocket
    var parser = HTTPMessageParser(role: .response, limits: HTTPLimits(maximumBodyBytes: 16 << 20))
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    init(port: UInt16) throws {
        switch TCPSocket.connect(host: "127.0.0.1", port: port, deadline: Deadline(millisecondsFromNow: 5000)) {
        case .success(let socket): self.socket = socket
        case .failure(let failure): throw TestConnectionError(description: "connect: \(failure)")
        }
    }

    func exchange(_ raw: String) -> HTTPMessage? {
        guard case .success = socket.send(Array(raw.utf8), deadline: Deadline(millisecondsFromNow: 10_000)) else {
            return nil
        }
        let deadline = Deadline(millisecondsFromNow: 60_000)
        while true {
            if let message = try? parser.next() { return message }
            switch socket.receive(into: &buffer, deadline: deadline) {
            case .success(let count): parser.append(buffer[0..<count])
            case .failure: return try? parser.endOfInput()
            }
        }
    }

    func request(_ method: String, _ target: String, headers: [String] = [], body: String = "") -> HTTPMessage? {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for header in headers { head += header + "\r\n" }
        if !body.isEmpty || method == "POST" {
            head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
        }
        return exchange(head + "\r\n" + body)
    }

    func close() { socket.close() }
}

struct TestConnectionError: Error, CustomStringConvertible {
    var description: String
}

extension HTTPMessage {
    var status: Int? { if case .response(_, let status, _) = startLine { return status } else { return nil } }
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue { (try? CanonicalJSON.parse(text)) ?? .null }
}

/// `simctl serve` as a process: the built binary, the URL read from its first line, stopped with SIGTERM.
final class ServeProcess {
    let process = Process()
    let url: String
    let port: UInt16
    let errors = Pipe()

    static var binary: URL {
        let besideTests = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("simctl")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        return URL(fileURLWithPath: repositoryRoot + "/.build/debug/simctl")
    }

    init(_ arguments: [String]) throws {
        process.executableURL = Self.binary
        process.arguments = ["serve"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = errors
        try process.run()
        var line: [UInt8] = []
        while !line.contains(0x0A) {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            line += data
        }
        url = String(decoding: line.prefix { $0 != 0x0A }, as: UTF8.self)
        port = UInt16(url.split(separator: ":").last ?? "") ?? 0
    }

    /// Sends SIGTERM and returns the exit status.
    func stop() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

@Suite(.serialized) struct ServeEndToEndTests {
    func freshToken() -> String {
        "Authorization: Bearer " + TestAPIKey().token(exp: Int64(Date().timeIntervalSince1970) + 600)
    }

    @Test func familyBillingStoryThroughTheBinary() throws {
        let received = LockedBodies()
        let receiver = try LoopbackReceiver { message in
            received.append(String(decoding: message.body, as: UTF8.self))
            return .respond(status: 200, body: "")
        }
        defer { receiver.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-e2e-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("family.yaml").path
        try familyServeScenario.write(toFile: file, atomically: true, encoding: .utf8)

        let serve = try ServeProcess([file, "--port", "0", "--deliver", receiver.url(path: "/notifications")])
        #expect(serve.url.hasPrefix("http://127.0.0.1:"))
        let connection = try TestConnection(port: serve.port)
        defer { connection.close() }

        var reference = try ServerAPITests.Reference()
        let start = reference.store.now
        func at(_ text: String) -> Instant { start.adding(CalendarDurationSyntax.parse(text)!) }
        func checkReadViews() throws {
            let state = try #require(connection.request("GET", "/simctl/v1/state")).json
            #expect(state.value(at: "now") == .integer(reference.store.now.millisecondsSince1970))
            guard let id = state.value(at: "customers.0.subscriptions.0.originalTransactionId")?.stringValue else {
                return
            }
            for (path, expected) in [
                ("/inApps/v1/subscriptions/\(id)", ServerAPI(reference.store).allSubscriptionStatuses(for: "alice")),
                ("/inApps/v2/history/\(id)", ServerAPI(reference.store).transactionHistory(for: "alice")),
            ] {
                let response = try #require(connection.request("GET", path, headers: [freshToken()]))
                #expect(response.status == 200)
                #expect(response.text == CanonicalJSON.string(expected), "\(path)")
            }
        }
        func control(_ path: String, _ body: String) {
            #expect(connection.request("POST", path, body: body)?.status == 200, "\(path) \(body)")
        }

        control("/simctl/v1/actions", #"{"purchase": {"customer": "alice", "product": "\#(familyProduct)"}}"#)
        try reference.perform(.purchase(customer: "alice", product: familyProduct))
        try checkReadViews()
        control("/simctl/v1/advance", #"{"by": "20d"}"#)
        try reference.advance(to: at("20d"))
        control("/simctl/v1/actions", #"{"failBilling": {"customer": "alice"}}"#)
        reference.store.failBilling(for: "alice")
        try checkReadViews()
        control("/simctl/v1/advance", #"{"to": "\#(at("P1M20D"))"}"#)
        try reference.advance(to: at("P1M20D"))
        try checkReadViews()
        control("/simctl/v1/actions", #"{"fixBilling": {"customer": "alice"}}"#)
        try reference.perform(.fixBilling(customer: "alice"))
        control("/simctl/v1/advance", #"{"to": "\#(at("P2M"))"}"#)
        try reference.advance(to: at("P2M"))
        try checkReadViews()

        // Hostile bytes on other connections get 4xx or a closed connection; the server keeps serving.
        for raw in [
            "NOT A REQUEST\r\n\r\n", "GET /\(String(repeating: "a", count: 20_000)) HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\nX: \(String(repeating: "b", count: 100_000))\r\n\r\n",
            "POST /simctl/v1/actions HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999999\r\n\r\n",
        ] {
            let hostile = try TestConnection(port: serve.port)
            let answer = hostile.exchange(raw)
            #expect(answer == nil || (400...499).contains(answer?.status ?? 0), "\(raw.prefix(40))")
            hostile.close()
        }
        #expect(connection.request("GET", "/inApps/v1/subscriptions/1")?.status == 401)

        // The receiver got what `simctl run` gives for the scenario file, byte for byte.
        let run = Process()
        run.executableURL = ServeProcess.binary
        run.arguments = ["run", repositoryRoot + "/Scenarios/family-billing-grace-recovery.yaml", "--format", "jsonl"]
        let out = Pipe()
        run.standardOutput = out
        try run.run()
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        run.waitUntilExit()
        #expect(lines.count == 8)
        #expect(received.bodies == lines)
        #expect(serve.stop() == 0)
    }
}

extension ServeEndToEndTests {
    /// Start-up order: the URL is printed before the first delivery, and a webhook that calls the server back over
    /// HTTP before answering gets every notification of the family story on its first attempt. The receiver waits
    /// for the URL the test reads from the first line: a server that delivered before printing it would see that
    /// attempt time out.
    @Test func theURLIsPrintedBeforeTheFirstDeliveryAndTheWebhookMayCallBack() throws {
        let port = LockedList<UInt16>()
        let nows = LockedList<String>()
        let receiver = try LoopbackReceiver { message in
            let deadline = Date().addingTimeInterval(10)
            while port.values.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            guard let serverPort = port.values.first, let connection = try? TestConnection(port: serverPort) else {
                return .respond(status: 500, body: "")
            }
            defer { connection.close() }
            let body = String(decoding: message.body, as: UTF8.self)
            let state = connection.request("GET", "/simctl/v1/state")?.json
            let signedDate = bodyPayload(body).value(at: "signedDate")
            nows.append(state?.value(at: "now") == signedDate ? "same" : "differs")
            return .respond(status: 200, body: "")
        }
        defer { receiver.stop() }
        let serve = try ServeProcess([
            repositoryRoot + "/Scenarios/family-billing-grace-recovery.yaml", "--deliver",
            receiver.url(path: "/apple"),
        ])
        port.append(serve.port)
        let connection = try TestConnection(port: serve.port)
        defer { connection.close() }
        #expect(connection.request("POST", "/simctl/v1/advance", body: #"{"by": "P2M"}"#)?.status == 200)
        // The log carries wall-clock latencies (decimal milliseconds).
        let log = try CanonicalJSON.parse(
            try #require(connection.request("GET", "/simctl/v1/deliveries")).text, allowFractions: true)
        let attempts = log.value(at: "attempts")
        guard case .array(let list)? = attempts else {
            Issue.record("no delivery log")
            return
        }
        #expect(list.count == 8)
        #expect(list.allSatisfy { $0.value(at: "sendAttemptResult") == .string("SUCCESS") })
        #expect(nows.values == Array(repeating: "same", count: 8))
        #expect(serve.stop() == 0)
    }
}

final class LockedBodies: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ body: String) {
        lock.lock()
        stored.append(body)
        lock.unlock()
    }
    var bodies: [String] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
