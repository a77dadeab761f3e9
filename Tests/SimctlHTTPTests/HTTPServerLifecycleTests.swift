import Foundation
import Testing

@testable import SimctlHTTP

/// Concurrency, the connection bound, stopping, binding errors, signals and the log.
@Suite struct HTTPServerLifecycleTests {
    @Test func aStalledClientDoesNotDelayAnotherClient() throws {
        let test = try TestServer(HTTPServerConfiguration(readTimeout: 60))
        defer { test.server.stop(graceSeconds: 0) }
        let stalled = try test.connect()
        stalled.send("GET /stalled HTTP/1.1\r\nHost: x\r\n")
        let other = try test.connect()
        other.send(get("/other"))
        #expect(text(other.response()) == "GET /other")
        #expect(test.requests.all.map(\.path) == ["/other"])
    }

    @Test func aSlowHandlerDoesNotDelayAnotherConnection() throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let test = try TestServer { request in
            if request.path == "/slow" {
                entered.signal()
                release.wait()
            }
            return .text(status: 200, request.path)
        }
        defer { test.server.stop() }
        let slow = try test.connect()
        slow.send(get("/slow"))
        #expect(entered.wait(timeout: .now() + 5) == .success)
        let fast = try test.connect()
        fast.send(get("/fast"))
        #expect(text(fast.response()) == "/fast")
        release.signal()
        #expect(text(slow.response()) == "/slow")
    }

    @Test func connectionsBeyondTheMaximumGet503AndAreClosed() throws {
        let test = try TestServer(HTTPServerConfiguration(maximumConnections: 2))
        defer { test.server.stop() }
        let first = try test.connect()
        let second = try test.connect()
        for connection in [first, second] {
            connection.send(get("/"))
            #expect(status(connection.response()) == 200)
        }
        let third = try test.connect()
        third.send(get("/third"))
        let refused = third.response()
        #expect(status(refused) == 503)
        #expect(refused?.headers["Connection"] == "close")
        #expect(third.isClosedByServer())
        #expect(test.reasons(atLeast: 1) == ["more than 2 connections open"])
        first.close()
        for _ in 0..<500 where test.server.openConnections > 1 { usleep(10_000) }
        let fourth = try test.connect()
        fourth.send(get("/fourth"))
        #expect(text(fourth.response()) == "GET /fourth")
        #expect(!test.requests.all.map(\.path).contains("/third"))
    }

    @Test func stopLetsARequestInFlightFinishAndClosesIdleConnections() throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let test = try TestServer { request in
            if request.path == "/slow" {
                entered.signal()
                release.wait()
            }
            return .text(status: 200, request.path)
        }
        let idle = try test.connect()
        idle.send(get("/first"))
        #expect(status(idle.response()) == 200)
        let busy = try test.connect()
        busy.send(get("/slow"))
        #expect(entered.wait(timeout: .now() + 5) == .success)
        let stopped = DispatchSemaphore(value: 0)
        let server = test.server
        Thread {
            server.stop(graceSeconds: 30); stopped.signal()
        }.start()
        #expect(idle.isClosedByServer())
        #expect(stopped.wait(timeout: .now() + 0.2) == .timedOut, "stop returned while a request was in flight")
        release.signal()
        let answer = busy.response()
        #expect(text(answer) == "/slow")
        #expect(answer?.headers["Connection"] == "close")
        #expect(stopped.wait(timeout: .now() + 10) == .success)
        #expect(throws: RawConnectionError.self) { try test.connect() }
    }

    @Test func stopClosesARequestStillArrivingAfterTheGracePeriod() throws {
        let test = try TestServer(HTTPServerConfiguration(readTimeout: 60))
        let partial = try test.connect()
        partial.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
        for _ in 0..<500 where test.server.openConnections == 0 { usleep(10_000) }
        usleep(50_000)  // let the server read the partial request
        test.server.stop(graceSeconds: 0.1)
        #expect(partial.response() == nil)
        #expect(test.log.all.compactMap(\.reason) == ["the server stopped while the request was arriving"])
        #expect(test.requests.count == 0)
    }

    @Test func stopIsIdempotentAndWorksBeforeStart() throws {
        let test = try TestServer()
        test.server.stop()
        test.server.stop()
        let unstarted = try HTTPServer { _ in HTTPResponse(status: 200) }
        unstarted.stop()
        unstarted.stop()
        #expect(throws: RawConnectionError.self) { try RawConnection(port: unstarted.port) }
    }

    @Test func anAddressInUseIsAClearError() throws {
        let first = try HTTPServer { _ in HTTPResponse(status: 200) }
        defer { first.stop() }
        let error = #expect(throws: HTTPServerError.self) {
            try HTTPServer(configuration: HTTPServerConfiguration(port: first.port)) { _ in HTTPResponse(status: 200) }
        }
        #expect(error?.description == "cannot listen on 127.0.0.1:\(first.port): Address already in use")
    }

    @Test func anUnresolvableHostIsAClearError() throws {
        let error = #expect(throws: HTTPServerError.self) {
            try HTTPServer(configuration: HTTPServerConfiguration(host: "no-such-host.invalid")) { _ in
                HTTPResponse(status: 200)
            }
        }
        #expect(error?.description.hasPrefix("cannot listen on no-such-host.invalid:0: cannot resolve host") == true)
    }

    @Test func everyAnswerIsLoggedWithItsSizes() throws {
        let test = try TestServer { _ in .text(status: 200, "12345") }
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send("POST /p?q=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
        #expect(status(connection.response()) == 200)
        let entry = try #require(test.entries(atLeast: 1).first)
        #expect(entry.method == "POST")
        #expect(entry.target == "/p?q=1")
        #expect(entry.status == 200)
        #expect(entry.requestBodyBytes == 3)
        #expect(entry.responseBodyBytes == 5)
        #expect(entry.reason == nil)
        #expect(entry.line == "#\(entry.connection) \(entry.remoteAddress) \"POST /p?q=1\" 200 in=3 out=5")
    }

    @Test func aLogLineEscapesControlBytesAndCutsLongTargets() {
        let entry = HTTPExchangeLogEntry(
            connection: 7, remoteAddress: "127.0.0.1:1", method: "GET",
            target: "/\u{1B}[31m\"" + String(repeating: "x", count: 300),
            status: nil, reason: "read timeout")
        #expect(entry.line.hasPrefix("#7 127.0.0.1:1 \"GET /\\x1B[31m\\x22xxx"))
        #expect(entry.line.hasSuffix("...\" closed in=0 out=0 (read timeout)"))
        #expect(
            HTTPExchangeLogEntry(connection: 1, remoteAddress: "a", status: 414).line == "#1 a \"-\" 414 in=0 out=0")
    }
}

/// ``ShutdownSignals`` through `sigwait`, the signals sent to the waiting thread only (the test process does not
/// block them elsewhere). Serialized: the waiting state is the process's.
@Suite(.serialized) struct ShutdownSignalsTests {
    static func waitOnAThread() -> (DispatchSemaphore, Collected<Int32>) {
        let done = DispatchSemaphore(value: 0)
        let received = Collected<Int32>()
        Thread {
            received.add(ShutdownSignals.wait())
            done.signal()
        }.start()
        return (done, received)
    }

    static var waiting: Int {
        ShutdownSignals.state.lock.lock()
        defer { ShutdownSignals.state.lock.unlock() }
        return ShutdownSignals.state.waiters.count
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalEndsTheWait(signal: Int32) {
        let (done, received) = Self.waitOnAThread()
        for _ in 0..<500 where Self.waiting == 0 { usleep(2_000) }
        ShutdownSignals.trigger(signal)
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(received.all == [signal])
    }

    @Test func aSignalBeforeTheWaitIsNotLost() {
        ShutdownSignals.trigger(SIGINT)
        let (done, received) = Self.waitOnAThread()
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(received.all == [SIGINT])
    }
}

/// Many clients at once.
@Suite struct HTTPServerConcurrencyTests {
    @Test func manyConcurrentKeepAliveClientsAreAllAnswered() throws {
        let test = try TestServer { request in .text(status: 200, request.path) }
        defer { test.server.stop() }
        let clients = 64
        let answers = Collected<String>()
        let group = DispatchGroup()
        for client in 0..<clients {
            group.enter()
            let port = test.port
            Thread {
                defer { group.leave() }
                guard let connection = try? RawConnection(port: port) else { return }
                for n in 0..<10 {
                    connection.send(get("/\(client)/\(n)"))
                    if let answer = text(connection.response()) { answers.add(answer) }
                }
                connection.close()
            }.start()
        }
        group.wait()
        let expected = (0..<clients).flatMap { client in (0..<10).map { "/\(client)/\($0)" } }
        #expect(answers.all.sorted() == expected.sorted())
        #expect(test.requests.count == clients * 10)
    }

    @Test func anIPv6LoopbackServerAnswers() throws {
        guard
            let server = try? HTTPServer(
                configuration: HTTPServerConfiguration(host: "::1"), handler: { _ in .text(status: 200, "v6") })
        else { return }  // no IPv6 on this machine
        defer { server.stop() }
        server.start()
        #expect(server.url == "http://[::1]:\(server.port)")
        let client = HTTPClient(endpoint: HTTPEndpoint(host: "::1", port: server.port, target: "/"))
        guard case .success(let response) = client.post([]) else {
            Issue.record("no answer over IPv6")
            return
        }
        #expect(String(decoding: response.body, as: UTF8.self) == "v6")
    }
}
