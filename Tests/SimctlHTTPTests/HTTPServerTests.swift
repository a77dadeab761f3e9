import Foundation
import Testing

@testable import SimctlHTTP

/// The server's HTTP/1.1 behaviour, over real sockets on 127.0.0.1. Timeouts are short and only bound waits; no test
/// asserts a duration.
@Suite struct HTTPServerTests {
    @Test func answersARequestWithTheHandlersResponse() throws {
        let test = try TestServer { request in
            .json(status: 201, "{\"path\":\"\(request.path)\",\"body\":\(request.body.count)}")
        }
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send("POST /a/b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
        let answer = connection.response()
        #expect(status(answer) == 201)
        #expect(text(answer) == "{\"path\":\"/a/b\",\"body\":3}")
        #expect(answer?.headers["Content-Type"] == "application/json")
        #expect(answer?.headers["Content-Length"] == "24")
        #expect(answer?.headers["Date"] == nil)
        #expect(test.requests.all.map(\.body) == [Array("abc".utf8)])
    }

    @Test func theURLNamesTheBoundLoopbackPort() throws {
        let server = try HTTPServer { _ in HTTPResponse(status: 204) }
        defer { server.stop() }
        #expect(server.port != 0)
        #expect(server.url == "http://127.0.0.1:\(server.port)")
    }
}
