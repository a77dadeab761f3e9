import Testing

@testable import SimctlHTTP

@Suite struct HTTPMessageParserTests {
    static func parse(
        _ text: String, role: HTTPMessageParser.Role = .response, limits: HTTPLimits = HTTPLimits(),
        byteByByte: Bool = false
    ) throws -> [HTTPMessage] {
        var parser = HTTPMessageParser(role: role, limits: limits)
        var messages: [HTTPMessage] = []
        let bytes = Array(text.utf8)
        let pieces = byteByByte ? bytes.map { [$0] } : [bytes]
        for piece in pieces {
            parser.append(piece)
            while let message = try parser.next() { messages.append(message) }
        }
        if let last = try parser.endOfInput() { messages.append(last) }
        return messages
    }

    @Test func contentLengthBodyIsReadExactly() throws {
        let messages = try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello")
        #expect(messages.count == 1)
        #expect(messages[0].startLine == .response(version: HTTPVersion(major: 1, minor: 1), status: 200, reason: "OK"))
        #expect(messages[0].headers["x-a"] == "b")
        #expect(String(decoding: messages[0].body, as: UTF8.self) == "hello")
    }

    @Test func chunkedBodyArrivingOneByteAtATimeIsReassembled() throws {
        let text =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-T: 1\r\n\r\n"
        let messages = try Self.parse(text, byteByByte: true)
        #expect(messages.count == 1)
        #expect(String(decoding: messages[0].body, as: UTF8.self) == "hello, world")
    }

    @Test func pipelinedRequestsAreSeparated() throws {
        let text =
            "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}GET /b HTTP/1.1\r\nHost: x\r\n\r\n"
        let messages = try Self.parse(text, role: .request)
        #expect(
            messages.map(\.startLine) == [
                .request(method: "POST", target: "/a", version: HTTPVersion(major: 1, minor: 1)),
                .request(method: "GET", target: "/b", version: HTTPVersion(major: 1, minor: 1)),
            ])
        #expect(messages[0].body == Array("{}".utf8) && messages[1].body.isEmpty)
    }

    @Test func interimResponsesAreSkipped() throws {
        let messages = try Self.parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n")
        #expect(messages.count == 1)
        if case .response(_, let status, _) = messages[0].startLine { #expect(status == 204) }
    }

    @Test func aResponseWithoutLengthRunsToTheEndOfTheConnection() throws {
        let messages = try Self.parse("HTTP/1.0 200 OK\r\n\r\nall of it")
        #expect(messages.count == 1 && messages[0].body == Array("all of it".utf8))
        #expect(!messages[0].keepsConnectionOpen)
    }

    @Test func aHeadSectionOverTheLimitIsAnError() {
        let limits = HTTPLimits(maximumHeadBytes: 64)
        let text = "HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 100)
        #expect(throws: HTTPParseError.headTooLarge(limit: 64)) { try Self.parse(text, limits: limits) }
    }

    @Test func aBodyOverTheLimitIsAnErrorBeforeItArrives() {
        let limits = HTTPLimits(maximumBodyBytes: 10)
        #expect(throws: HTTPParseError.bodyTooLarge(limit: 10)) {
            try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n", limits: limits)
        }
        #expect(throws: HTTPParseError.bodyTooLarge(limit: 10)) {
            try Self.parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n", limits: limits)
        }
        #expect(throws: HTTPParseError.bodyTooLarge(limit: 10)) {
            try Self.parse("HTTP/1.1 200 OK\r\n\r\n" + String(repeating: "z", count: 11), limits: limits)
        }
    }

    @Test func tooManyHeaderFieldsIsAnError() {
        let text = "HTTP/1.1 200 OK\r\n" + String(repeating: "A: b\r\n", count: 4) + "\r\n"
        #expect(throws: HTTPParseError.tooManyHeaders(limit: 3)) {
            try Self.parse(text, limits: HTTPLimits(maximumHeaderCount: 3))
        }
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX: a\r\n folded\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX : a\r\n\r\n",
        "HTTP/2 200 OK\r\n\r\n",
        "HTTP/1.1 2000 OK\r\n\r\n",
        "SSH-2.0-OpenSSH\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\naXY",
    ])
    func malformedOrAmbiguousResponsesAreErrors(text: String) {
        #expect(throws: HTTPParseError.self) { try Self.parse(text) }
    }

    @Test func anInputEndingInsideAMessageIsTruncated() {
        #expect(throws: HTTPParseError.truncated) { try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nab") }
        #expect(throws: HTTPParseError.truncated) { try Self.parse("HTTP/1.1 200") }
    }

    @Test func aRequestWithoutLengthHasNoBody() throws {
        let messages = try Self.parse("GET / HTTP/1.1\r\nHost: x\r\n\r\n", role: .request)
        #expect(messages.count == 1 && messages[0].body.isEmpty && messages[0].keepsConnectionOpen)
    }

    @Test func connectionCloseEndsKeepAlive() throws {
        let messages = try Self.parse("HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n")
        #expect(!messages[0].keepsConnectionOpen)
    }

    @Test func theBufferStaysBoundedOverManyMessages() throws {
        var parser = HTTPMessageParser(role: .request)
        let one = Array("POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc".utf8)
        for _ in 0..<10_000 {
            parser.append(one)
            #expect(try parser.next() != nil)
        }
        #expect(parser.buffer.count < 8192 + one.count)
    }
}

@Suite struct HTTPEndpointTests {
    @Test func httpsIsRefusedWithAClearError() {
        #expect(throws: HTTPEndpointError.self) { try HTTPEndpoint(url: "https://example.com/hook") }
        do { _ = try HTTPEndpoint(url: "https://example.com/hook") } catch {
            #expect(error.description.contains("https is not supported"))
        }
    }

    @Test func urlsAreTakenApart() throws {
        #expect(
            try HTTPEndpoint(url: "http://127.0.0.1:8080/asn/v2?x=1")
                == HTTPEndpoint(host: "127.0.0.1", port: 8080, target: "/asn/v2?x=1"))
        #expect(try HTTPEndpoint(url: "http://localhost") == HTTPEndpoint(host: "localhost", port: 80, target: "/"))
        #expect(try HTTPEndpoint(url: "http://[::1]:9000/n") == HTTPEndpoint(host: "::1", port: 9000, target: "/n"))
        #expect(try HTTPEndpoint(url: "http://[::1]:9000/n").hostHeader == "[::1]:9000")
    }

    @Test(arguments: [
        "ftp://x/", "http://", "http://host:0/", "http://host:70000/", "http://host:x/", "http://u@host/",
        "http://h/a b",
    ])
    func badURLsAreErrors(url: String) {
        #expect(throws: HTTPEndpointError.self) { try HTTPEndpoint(url: url) }
    }
}
