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

/// Keep-alive, pipelining, HTTP/1.0, HEAD, methods and the framing of answers.
@Suite struct HTTPServerConnectionTests {
    @Test func anHTTP11ConnectionStaysOpenForTheNextRequest() throws {
        let test = try TestServer()
        defer { test.server.stop() }
        let connection = try test.connect()
        for n in 0..<3 {
            connection.send(get("/n/\(n)"))
            let answer = connection.response()
            #expect(text(answer) == "GET /n/\(n)")
            #expect(answer?.headers["Connection"] == nil)
        }
        #expect(test.requests.count == 3)
        #expect(Set(test.entries(atLeast: 3).map(\.connection)).count == 1)
    }

    @Test func connectionCloseIsHonoured() throws {
        let test = try TestServer()
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send(get("/", headers: "Connection: close\r\n"))
        #expect(connection.response()?.headers["Connection"] == "close")
        #expect(connection.isClosedByServer())
    }

    @Test func anHTTP10ConnectionClosesAfterTheAnswer() throws {
        let test = try TestServer()
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send("GET /old HTTP/1.0\r\n\r\n")
        let answer = connection.response()
        #expect(text(answer) == "GET /old")
        #expect(answer?.headers["Connection"] == "close")
        #expect(connection.isClosedByServer())
    }

    @Test func anHTTP10ConnectionWithKeepAliveStaysOpen() throws {
        let test = try TestServer()
        defer { test.server.stop() }
        let connection = try test.connect()
        for _ in 0..<2 {
            connection.send("GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(connection.response()?.headers["Connection"] == "keep-alive")
        }
        #expect(test.requests.count == 2)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let test = try TestServer()
        defer { test.server.stop() }
        let connection = try test.connect()
        let body = "POST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
        connection.send(get("/1") + body + get("/3") + get("/4", headers: "Connection: close\r\n"))
        let answers = (0..<4).map { _ in text(connection.response()) }
        #expect(answers == ["GET /1", "POST /2", "GET /3", "GET /4"])
        #expect(connection.isClosedByServer())
    }

    @Test func headIsAnsweredWithTheHeadersButNoBody() throws {
        let test = try TestServer { _ in .text(status: 200, "twelve bytes") }
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n" + get("/after"))
        let head = connection.response(headRequest: true)
        #expect(head?.headers["Content-Length"] == "12")
        #expect(head?.body == [])
        // Were the body sent, it would be read as the start of this answer and fail to parse.
        #expect(text(connection.response()) == "twelve bytes")
        #expect(test.entries(atLeast: 1).first?.responseBodyBytes == 12)
    }

    @Test func anUnknownMethodReachesTheHandler() throws {
        let test = try TestServer { request in .text(status: 405, "no \(request.method)") }
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send("BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = connection.response()
        #expect(status(answer) == 405)
        #expect(text(answer) == "no BREW")
        #expect(test.requests.all.map(\.method) == ["BREW"])
    }

    @Test func aChunkedBodyIsDecoded() throws {
        let test = try TestServer { request in .text(status: 200, String(decoding: request.body, as: UTF8.self)) }
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send(
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
        #expect(text(connection.response()) == "hello world")
    }

    @Test func expect100ContinueGetsAnInterimAnswerBeforeTheBody() throws {
        let test = try TestServer { request in .text(status: 200, String(decoding: request.body, as: UTF8.self)) }
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send("PUT /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        var interim: [UInt8] = []
        while !String(decoding: interim, as: UTF8.self).contains("\r\n\r\n") {
            guard
                case .success(let count) = connection.socket.receive(
                    into: &connection.buffer, deadline: Deadline(millisecondsFromNow: 5000))
            else { break }
            interim += connection.buffer[0..<count]
        }
        #expect(String(decoding: interim, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
        connection.send("data")
        #expect(text(connection.response()) == "data")
    }

    @Test func aBodyOverTheLimitWithExpectIsRefusedBeforeItIsSent() throws {
        let test = try TestServer(HTTPServerConfiguration(limits: HTTPServerLimits(maximumBodyBytes: 100)))
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send("PUT /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 101\r\n\r\n")
        #expect(status(connection.response()) == 413)
        #expect(test.requests.count == 0)
    }

    @Test func anUnknownExpectationIs417() throws {
        let test = try TestServer()
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send(get("/", headers: "Expect: teapot\r\n"))
        #expect(status(connection.response()) == 417)
        #expect(test.requests.count == 0)
    }

    @Test func noContentHasNeitherLengthNorBody() throws {
        let test = try TestServer { _ in HTTPResponse(status: 204, body: Array("ignored".utf8)) }
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send(get("/") + get("/again"))
        let first = connection.response()
        #expect(status(first) == 204)
        #expect(first?.headers["Content-Length"] == nil)
        #expect(status(connection.response()) == 204)
    }

    @Test func theHandlersConnectionCloseClosesTheConnection() throws {
        let test = try TestServer { _ in
            HTTPResponse(status: 200, headers: HTTPHeaders([HTTPField(name: "Connection", value: "close")]))
        }
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send(get("/"))
        #expect(connection.response()?.headers["Connection"] == "close")
        #expect(connection.isClosedByServer())
    }

    @Test func anEmptyLineBeforeARequestIsIgnored() throws {
        let test = try TestServer()
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send("\r\n" + get("/x"))
        #expect(text(connection.response()) == "GET /x")
    }
}

/// The request-target: path, query, percent escapes.
@Suite struct HTTPServerTargetTests {
    @Test func thePathAndQueryArePercentDecoded() throws {
        let test = try TestServer()
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send(get("/inApps/v1/a%20b/c%2Fd+e?x=1&y=a+b%26c&flag&x=%E2%82%AC&&z="))
        #expect(status(connection.response()) == 200)
        let request = try #require(test.requests.all.first)
        #expect(request.target == "/inApps/v1/a%20b/c%2Fd+e?x=1&y=a+b%26c&flag&x=%E2%82%AC&&z=")
        #expect(request.path == "/inApps/v1/a b/c/d+e")
        #expect(request.query.map { "\($0.name)=\($0.value)" } == ["x=1", "y=a b&c", "flag=", "x=€", "z="])
        #expect(request.queryValues("x") == ["1", "€"])
        #expect(request.queryValue("y") == "a b&c")
        #expect(request.remoteAddress.hasPrefix("127.0.0.1:"))
    }

    @Test func anAbsoluteFormTargetGivesItsPath() throws {
        let decoded = try HTTPRequest.decodeTarget("http://example.com:80/p/q?a=1")
        #expect(decoded.path == "/p/q")
        #expect(decoded.query.map(\.value) == ["1"])
        #expect(try HTTPRequest.decodeTarget("http://example.com").path == "/")
        #expect(try HTTPRequest.decodeTarget("*").path == "*")
    }

    @Test(arguments: [
        "/a%2", "/a%zz", "/a?x=%", "/a?%G1=1", "/%C3%28", "/a%00b", "/a#frag", "relative", "/a?x=%FF",
    ])
    func anInvalidTargetIs400AndNeverReachesTheHandler(target: String) throws {
        let test = try TestServer()
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send(get(target))
        let answer = connection.response()
        #expect(status(answer) == 400)
        #expect(text(answer)?.contains("invalid request-target") == true)
        #expect(connection.isClosedByServer())
        #expect(test.requests.count == 0)
        #expect(test.reasons(atLeast: 1).first?.contains("invalid request-target") == true)
    }
}

/// Size limits, timeouts and malformed requests: each is answered with its status, closed, logged, and never reaches
/// the handler.
@Suite struct HTTPServerRejectionTests {
    static let small = HTTPServerConfiguration(
        limits: HTTPServerLimits(
            maximumRequestLineBytes: 100, maximumHeadBytes: 300, maximumHeaderCount: 5, maximumBodyBytes: 50),
        readTimeout: 0.3)

    func expectRejection(
        _ request: String, status expected: Int, reason: String, configuration: HTTPServerConfiguration = small
    ) throws {
        let test = try TestServer(configuration)
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send(request)
        let answer = connection.response()
        #expect(status(answer) == expected)
        #expect(answer?.headers["Connection"] == "close")
        #expect(text(answer)?.contains(reason) == true)
        #expect(connection.isClosedByServer())
        #expect(test.requests.count == 0)
        let reasons = test.reasons(atLeast: 1)
        #expect(reasons.count == 1 && reasons[0].contains(reason), "\(reasons)")
        #expect(test.entries(atLeast: 1).first?.status == expected)
    }

    @Test func aRequestLineOverTheLimitIs414() throws {
        try expectRejection(
            get("/" + String(repeating: "a", count: 100)), status: 414, reason: "request line longer than 100 bytes")
    }

    @Test func aRequestLineAtTheLimitIsServed() throws {
        let test = try TestServer(Self.small)
        defer { test.server.stop() }
        let connection = try test.connect()
        // "GET " + target + " HTTP/1.1" is exactly 100 bytes.
        connection.send(get("/" + String(repeating: "a", count: 86)))
        #expect(status(connection.response()) == 200)
    }

    @Test func anUnterminatedRequestLineOverTheLimitIs414AtOnce() throws {
        try expectRejection(
            "GET /" + String(repeating: "a", count: 200), status: 414, reason: "request line longer than 100 bytes")
    }

    @Test func aHeadOverTheLimitIs431() throws {
        try expectRejection(
            get("/", headers: "X-Big: \(String(repeating: "b", count: 300))\r\n"), status: 431,
            reason: "the header section is larger than 300 bytes")
    }

    @Test func tooManyHeaderFieldsIs431() throws {
        try expectRejection(
            get("/", headers: (1...5).map { "X-\($0): v\r\n" }.joined()), status: 431,
            reason: "more than 5 header fields"
        )
    }

    @Test func aContentLengthOverTheLimitIs413BeforeTheBody() throws {
        try expectRejection(
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 51\r\n\r\n", status: 413,
            reason: "the body is larger than 50 bytes")
    }

    @Test func aChunkedBodyOverTheLimitIs413() throws {
        try expectRejection(
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n20\r\n\(String(repeating: "c", count: 32))\r\n20\r\n",
            status: 413, reason: "the body is larger than 50 bytes")
    }

    @Test func anUnknownTransferCodingIs501() throws {
        try expectRejection(
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", status: 501,
            reason: "unsupported Transfer-Encoding 'gzip'")
    }

    @Test func aPartialRequestGets408AfterTheReadTimeout() throws {
        try expectRejection("GET / HTTP/1.1\r\nHost: x\r\n", status: 408, reason: "read timeout")
    }

    @Test func aMissingBodyGets408AfterTheReadTimeout() throws {
        try expectRejection(
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc", status: 408, reason: "read timeout")
    }

    @Test func anHTTP11RequestWithoutHostIs400() throws {
        try expectRejection("GET / HTTP/1.1\r\n\r\n", status: 400, reason: "without a Host header field")
    }

    @Test func twoHostFieldsAre400() throws {
        try expectRejection(
            "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", status: 400, reason: "more than one Host header field")
    }

    @Test func aControlByteInAFieldValueIs400() throws {
        try expectRejection(get("/", headers: "X-A: a\u{1}b\r\n"), status: 400, reason: "a control byte")
    }

    @Test func anUnsupportedVersionIs505() throws {
        try expectRejection("GET / HTTP/2.0\r\nHost: x\r\n\r\n", status: 505, reason: "HTTP version 'HTTP/2.0'")
    }

    @Test(arguments: [
        ("get / HTTP/1.1\r\n", "the request line"), ("GET  / HTTP/1.1\r\n", "empty part"),
        ("GET / HTTP/1.1 x\r\n", "more than two spaces"), ("GET /\r\n", "a method, a target and a version"),
        ("G(T / HTTP/1.1\r\n", "in the method"), ("GET /\u{7F} HTTP/1.1\r\n", "in the request-target"),
        ("GET / HTTP/1.1\n", "LF without CR"), ("GET / http/1.1\r\n", "in the HTTP version"),
    ])
    func aMalformedRequestLineIs400AtOnce(line: String, reason: String) throws {
        // No blank line follows: the answer comes from the line alone, before the read timeout.
        let configuration = HTTPServerConfiguration(readTimeout: 30)
        if line.hasPrefix("get") {
            // A lowercase method is a valid token: it reaches the handler.
            let test = try TestServer(configuration)
            defer { test.server.stop() }
            let connection = try test.connect()
            connection.send(line + "Host: x\r\n\r\n")
            #expect(status(connection.response()) == 200)
            return
        }
        try expectRejection(line, status: 400, reason: reason, configuration: configuration)
    }

    @Test func aHandlerResponseThatWouldSplitTheAnswerIsReplacedBy500() throws {
        let test = try TestServer { _ in
            HTTPResponse(status: 200, headers: HTTPHeaders([HTTPField(name: "X", value: "a\r\nSet-Cookie: b")]))
        }
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send(get("/"))
        let answer = connection.response()
        #expect(status(answer) == 500)
        #expect(answer?.headers["Set-Cookie"] == nil)
        #expect(test.reasons(atLeast: 1).first?.contains("contains CR, LF or NUL") == true)
    }

    @Test func anIdleConnectionIsClosedAfterTheReadTimeoutWithoutAnAnswer() throws {
        let test = try TestServer(Self.small)
        defer { test.server.stop() }
        let connection = try test.connect()
        connection.send(get("/"))
        #expect(status(connection.response()) == 200)
        #expect(connection.isClosedByServer())
        #expect(connection.response() == nil)
    }
}
