import Foundation
import Testing

@testable import SimctlHTTP

/// Over a thousand malformed or hostile requests against one server: each gets a 4xx/5xx answer or a closed
/// connection, never a hang or a crash; the handler is called only for requests it answered (200); the server keeps
/// serving well-formed requests afterwards and ends with no connection left open. Cases come from a table and from a
/// seeded generator (the seed is in every failure message); they run 48 at a time, so the stalls overlap.
@Suite struct HTTPServerRobustnessTests {
    static let seed: UInt64 = 0x5EED_0013

    static let configuration = HTTPServerConfiguration(
        limits: HTTPServerLimits(
            maximumRequestLineBytes: 256, maximumHeadBytes: 1024, maximumHeaderCount: 20, maximumBodyBytes: 4096),
        readTimeout: 0.5, writeTimeout: 2, maximumConnections: 256, lingerSeconds: 0.5)

    /// What a case does with its connection.
    enum Action: Sendable {
        /// Sends the bytes and reads every answer until the server closes.
        case send
        /// Sends the bytes one at a time, 50 ms apart, until the server closes.
        case trickle
        /// Sends the bytes, then resets the connection.
        case reset
    }

    struct Case: Sendable {
        var name: String
        var bytes: [UInt8]
        var action = Action.send
        /// A mutation of a valid request: may be served (200).
        var mayBeServed = false
    }

    /// The statuses answered, and whether the server closed the connection before the client gave up.
    struct Outcome: Sendable {
        var statuses: [Int] = []
        var closed = false
    }

    // MARK: - Cases

    static func tableCases() -> [Case] {
        var cases: [Case] = []
        func add(_ name: String, _ text: String, _ action: Action = .send) {
            cases.append(Case(name: name, bytes: Array(text.utf8), action: action))
        }
        let host = "\r\nHost: x\r\n\r\n"
        for method in ["", " ", "G ET", "GE\u{0}T", "GET\t", "(GET)", "GÉT", "G\u{7F}T", "GET\r"] {
            add("method \(method.debugDescription)", "\(method) / HTTP/1.1" + host)
        }
        for target in ["", "/a b", "/\u{0}", "/%", "/%zz", "/%C3%28", "/#x", "x", "/\u{7F}", "/é", "/%00", "/?a=%G0"] {
            add("target \(target.debugDescription)", "GET \(target) HTTP/1.1" + host)
        }
        for version in [
            "", "HTTP/1.2", "HTTP/2", "HTTP/1.1 ", "HTTP/1", "http/1.1", "HTTP/1.1x", "HTTP/11.1", "HTP/1.1",
            "HTTP/1.1\u{0}", "HTTP/0.9", "HTTP/3.0",
        ] {
            add("version \(version.debugDescription)", "GET / \(version)" + host)
        }
        for field in [
            "NoColon", " Leading: space", "Name : v", "Na me: v", "X: a\u{0}b", "X: \u{1}", "X: a\rb", "\tfolded",
            "Content-Length: -1", "Content-Length: 1e3", "Content-Length: 5, 6", "Content-Length: 99999999999999999999",
            "Transfer-Encoding: chunked\r\nContent-Length: 5", "Transfer-Encoding: gzip",
            "Transfer-Encoding: chunked, gzip", "Host: y", "Expect: 200-ok", ": empty name", "X\u{0}: v",
        ] {
            add("field \(field.debugDescription)", "GET / HTTP/1.1\r\nHost: x\r\n\(field)\r\n\r\n")
        }
        add("no Host", "GET / HTTP/1.1\r\n\r\n")
        for chunk in [
            "zz", "-1", "FFFFFFFFFFFFFFFFFF", "5\r\nhelloX", "1001", "3;\(String(repeating: "e", count: 2000))",
        ] {
            add(
                "chunk \(chunk.prefix(20).debugDescription)",
                "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\(chunk)\r\n")
        }
        for size in [300, 10_000, 100_000] {
            add("request line of \(size)", "GET /" + String(repeating: "a", count: size) + " HTTP/1.1" + host)
        }
        for size in [2000, 50_000, 500_000] {
            add(
                "header of \(size)",
                "GET / HTTP/1.1\r\nHost: x\r\nX: " + String(repeating: "h", count: size) + "\r\n\r\n")
        }
        add("50 headers", "GET / HTTP/1.1\r\nHost: x\r\n" + (0..<50).map { "X-\($0): v\r\n" }.joined() + "\r\n")
        for size in [5000, 1_000_000] {
            add(
                "body of \(size)",
                "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \(size)\r\n\r\n" + String(repeating: "b", count: size))
        }
        add(
            "chunked body of 8 KiB",
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + String(repeating: "400\r\n" + String(repeating: "c", count: 1024) + "\r\n", count: 8) + "0\r\n\r\n")
        for n in 0..<20 { add("idle \(n)", "") }
        for n in 0..<10 {
            add(
                "slowloris \(n)", "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + String(repeating: "s", count: 200), .trickle
            )
        }
        return cases
    }

    static let valid = Array(
        "POST /inApps/v1/x?y=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"a\":[1,2,3]}"
            .utf8)

    static func generatedCases(_ random: inout SplitMix64) -> [Case] {
        var cases: [Case] = []
        for n in 0..<450 {
            let bytes = (0..<random.below(2000) + 1).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            cases.append(Case(name: "random \(n)", bytes: bytes))
        }
        for n in 0..<150 {
            let bytes = (0..<random.below(300) + 1).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            cases.append(Case(name: "GET / then random \(n)", bytes: Array("GET /".utf8) + bytes))
        }
        for n in 0..<200 {
            var bytes = valid
            for _ in 0..<(random.below(4) + 1) {
                let index = random.below(bytes.count)
                switch random.below(3) {
                case 0: bytes[index] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes.remove(at: index)
                default: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: index)
                }
            }
            cases.append(Case(name: "mutation \(n)", bytes: bytes, mayBeServed: true))
        }
        for n in 0..<60 {
            cases.append(Case(name: "stall \(n)", bytes: Array(valid.prefix(random.below(valid.count - 1) + 1))))
        }
        for n in 0..<100 {
            cases.append(
                Case(name: "reset \(n)", bytes: Array(valid.prefix(random.below(valid.count - 1) + 1)), action: .reset))
        }
        return cases
    }

    // MARK: - Running

    static func run(_ hostile: Case, port: UInt16) -> Outcome {
        guard let connection = try? RawConnection(port: port) else { return Outcome() }
        var outcome = Outcome()
        switch hostile.action {
        case .reset:
            connection.send(hostile.bytes)
            connection.reset()
            outcome.closed = true
            return outcome
        case .trickle:
            for byte in hostile.bytes {
                guard connection.send([byte]) else { break }
                if connection.isClosedByServer(timeoutMilliseconds: 50) { break }
            }
            // The read timeout (0.5 s) runs out long before the 200 bytes (10 s): the 408 is in what was received.
            connection.parser.append(connection.received)
        case .send:
            connection.send(hostile.bytes)
        }
        while let answer = connection.response(timeoutMilliseconds: 5000) {
            outcome.statuses.append(status(answer) ?? 0)
        }
        outcome.closed = connection.isClosedByServer(timeoutMilliseconds: 100)
        connection.close()
        return outcome
    }

    static func runAll(_ cases: [Case], port: UInt16, width: Int) -> [Outcome] {
        let results = Collected<(Int, Outcome)>()
        let next = Collected<Int>()
        let group = DispatchGroup()
        for _ in 0..<width {
            group.enter()
            Thread {
                while true {
                    next.lock.lock()
                    let index = next.items.count
                    next.items.append(index)
                    next.lock.unlock()
                    guard index < cases.count else { break }
                    results.add((index, run(cases[index], port: port)))
                }
                group.leave()
            }.start()
        }
        group.wait()
        var outcomes = [Outcome](repeating: Outcome(), count: cases.count)
        for (index, outcome) in results.all { outcomes[index] = outcome }
        return outcomes
    }

    @Test func hostileRequestsGetAnErrorOrACloseAndTheServerKeepsServing() throws {
        var random = SplitMix64(seed: Self.seed)
        let cases = Self.tableCases() + Self.generatedCases(&random)
        #expect(cases.count >= 1000)
        let test = try TestServer(Self.configuration) { _ in .text(status: 200, "handled") }
        defer { test.server.stop() }
        let outcomes = Self.runAll(cases, port: test.port, width: 48)
        var served = 0
        for (hostile, outcome) in zip(cases, outcomes) {
            let context = Comment(rawValue: "seed \(Self.seed), case '\(hostile.name)': \(outcome)")
            #expect(outcome.closed, context)
            let rejections = outcome.statuses.filter { $0 != 200 }
            #expect(rejections.allSatisfy { $0 >= 400 && $0 <= 599 }, context)
            #expect(rejections.count <= 1 && (rejections.isEmpty || outcome.statuses.last! >= 400), context)
            if !hostile.mayBeServed { #expect(!outcome.statuses.contains(200), context) }
            served += outcome.statuses.count { $0 == 200 }
        }
        #expect(test.requests.count == served, "seed \(Self.seed): the handler ran for a request not answered 200")
        // Still serving, on fresh and kept-alive connections.
        let connection = try test.connect()
        for n in 0..<5 {
            connection.send(get("/after/\(n)"))
            #expect(text(connection.response()) == "handled")
        }
        connection.close()
        for _ in 0..<500 where test.server.openConnections > 0 { usleep(10_000) }
        #expect(test.server.openConnections == 0)
        let log = test.log.all
        #expect(log.filter { $0.status != 200 }.allSatisfy { $0.reason != nil })
        #expect(log.count { ($0.status ?? 0) >= 400 } >= outcomes.reduce(0) { $0 + $1.statuses.count { $0 >= 400 } })
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): the tests' own seeded generator.
struct SplitMix64 {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0..<bound (bound > 0), by rejection.
    mutating func below(_ bound: Int) -> Int {
        let limit = UInt64.max - UInt64.max % UInt64(bound)
        while true {
            let value = next()
            if value < limit { return Int(value % UInt64(bound)) }
        }
    }
}
