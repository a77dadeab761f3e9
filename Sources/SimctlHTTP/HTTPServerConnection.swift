#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a connection ends.
enum ConnectionEnd {
    /// Close now.
    case close
    /// An error answer was sent: read and discard what follows for a while, then close.
    case linger
}

/// One connection's request loop, on its own thread: read, parse, validate, call the handler, answer; until the
/// client closes, a request says close, an error answer, a timeout, or the server stops.
struct ConnectionSession {
    let server: HTTPServer
    let connection: HTTPServer.Connection
    let limits: HTTPServerLimits
    var parser: HTTPMessageParser
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    /// Requests answered on this connection.
    var answered = 0
    var sentContinue = false
    /// When the request now arriving must be complete; nil while waiting for a request.
    var requestDeadline: Deadline?
    /// When an idle connection is closed.
    var idleDeadline: Deadline

    init(server: HTTPServer, connection: HTTPServer.Connection) {
        self.server = server
        self.connection = connection
        self.limits = server.configuration.limits
        self.parser = HTTPMessageParser(role: .request, limits: limits.parserLimits)
        self.idleDeadline = Deadline(millisecondsFromNow: Self.milliseconds(server.configuration.readTimeout))
    }

    static func milliseconds(_ seconds: Double) -> Int64 { Int64((max(0, seconds) * 1000).rounded()) }

    var readTimeoutText: String { "\(Self.secondsText(server.configuration.readTimeout)) s" }

    static func secondsText(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    mutating func run() -> ConnectionEnd {
        while true {
            if parser.skipEmptyLineBeforeRequest() { continue }
            if let problem = parser.startLineProblem(limit: limits.maximumRequestLineBytes) {
                return reject(status: problem.status, reason: problem.reason, head: nil)
            }
            let message: HTTPMessage?
            do throws(HTTPParseError) {
                message = try parser.next()
            } catch {
                let (status, reason) = Self.rejection(for: error)
                return reject(status: status, reason: reason, head: parser.current)
            }
            if let message {
                if let end = answer(message) { return end }
                sentContinue = false
                if parser.isIdle {
                    requestDeadline = nil
                    idleDeadline = Deadline(millisecondsFromNow: Self.milliseconds(server.configuration.readTimeout))
                } else {
                    requestDeadline = Deadline(
                        millisecondsFromNow: Self.milliseconds(server.configuration.readTimeout))
                }
                continue
            }
            if let head = parser.headInProgress {
                if let expectation = head.1["Expect"], !sentContinue {
                    guard expectation.lowercased() == "100-continue" else {
                        return reject(
                            status: 417, reason: "unsupported expectation 'Expect: \(expectation)'", head: head)
                    }
                    if case .request(_, _, let version) = head.0, version.minor >= 1 {
                        guard
                            case .success = connection.socket.send(
                                Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), deadline: writeDeadline())
                        else { return .close }
                    }
                    sentContinue = true
                }
            }
            let idle = parser.isIdle
            if !server.setIdle(connection, idle) { return .close }
            let deadline = idle ? idleDeadline : requestDeadline!
            switch connection.socket.receive(into: &buffer, deadline: deadline, waitFirst: true) {
            case .success(let count):
                if idle {
                    requestDeadline = Deadline(
                        millisecondsFromNow: Self.milliseconds(server.configuration.readTimeout))
                    _ = server.setIdle(connection, false)
                }
                parser.append(buffer[0..<count])
            case .failure(.timedOut):
                if idle {
                    if answered == 0 {
                        log(head: nil, status: nil, reason: "no request within the read timeout (\(readTimeoutText))")
                    }
                    return .close
                }
                return reject(
                    status: 408,
                    reason: "read timeout: the request did not arrive completely within \(readTimeoutText)",
                    head: parser.headInProgress)
            case .failure(.closed):
                if !idle {
                    let reason =
                        server.isStopping
                        ? "the server stopped while the request was arriving"
                        : "the client closed the connection in the middle of a request"
                    log(head: parser.headInProgress, status: nil, reason: reason)
                } else if answered == 0 && !server.isStopping {
                    log(head: nil, status: nil, reason: "the client closed the connection without sending a request")
                }
                return .close
            case .failure(.error(let text)):
                log(head: parser.headInProgress, status: nil, reason: "receive failed: \(text)")
                return .close
            }
        }
    }

    func writeDeadline() -> Deadline {
        Deadline(millisecondsFromNow: Self.milliseconds(server.configuration.writeTimeout))
    }

    /// The status and reason for a parse error.
    static func rejection(for error: HTTPParseError) -> (Int, String) {
        switch error {
        case .headTooLarge: return (431, error.description)
        case .tooManyHeaders: return (431, error.description)
        case .bodyTooLarge: return (413, error.description)
        case .unsupportedTransferEncoding: return (501, error.description)
        case .malformedStartLine(let line):
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            if parts.count == 3, let version = parts.last, version.hasPrefix("HTTP/"),
                version.dropFirst(5).allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), version.count > 5
            {
                return (505, "HTTP version '\(version)' is not supported (HTTP/1.0 and HTTP/1.1 are)")
            }
            return (400, error.description)
        case .malformedHeader, .invalidContentLength, .invalidChunk, .truncated: return (400, error.description)
        }
    }

    /// Validates and answers one complete request; nil when the connection stays open.
    mutating func answer(_ message: HTTPMessage) -> ConnectionEnd? {
        guard case .request(let method, let target, let version) = message.startLine else {
            return reject(status: 400, reason: "not a request", head: nil)
        }
        let head = (message.startLine, message.headers)
        let hosts = message.headers.values("Host")
        if hosts.count > 1 {
            return reject(
                status: 400, reason: "more than one Host header field", head: head, bodyBytes: message.body.count)
        }
        if hosts.isEmpty && version.minor >= 1 {
            return reject(
                status: 400, reason: "an HTTP/1.1 request without a Host header field", head: head,
                bodyBytes: message.body.count)
        }
        for field in message.headers.fields
        where field.value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            return reject(
                status: 400, reason: "a control byte in the value of the header field '\(field.name)'", head: head,
                bodyBytes: message.body.count)
        }
        if let expectation = message.headers["Expect"], expectation.lowercased() != "100-continue" {
            return reject(
                status: 417, reason: "unsupported expectation 'Expect: \(expectation)'", head: head,
                bodyBytes: message.body.count)
        }
        let request: HTTPRequest
        do throws(HTTPTargetError) {
            request = try HTTPRequest(
                method: method, target: target, headers: message.headers, body: message.body,
                remoteAddress: connection.remoteAddress, version: version)
        } catch {
            return reject(status: 400, reason: error.description, head: head, bodyBytes: message.body.count)
        }
        var response = server.handler(request)
        var reason: String?
        if let problem = Self.problem(with: response) {
            reason = "the handler's response was replaced: \(problem)"
            response = .text(status: 500, "500 Internal Server Error\n")
        }
        let handlerCloses = response.headers.values("Connection").contains {
            $0.split(separator: ",").contains { $0.trimmingHTTPWhitespace().lowercased() == "close" }
        }
        let keepAlive = message.keepsConnectionOpen && !handlerCloses && !server.isStopping
        let bytes = Self.serialize(
            response, keepAlive: keepAlive, http10: version.minor == 0, omitBody: method == "HEAD")
        let sent = connection.socket.send(bytes, deadline: writeDeadline())
        answered += 1
        if case .failure(let failure) = sent {
            reason = (reason.map { $0 + "; " } ?? "") + "sending the answer failed: \(failure)"
        }
        server.emit(
            HTTPExchangeLogEntry(
                connection: connection.number, remoteAddress: connection.remoteAddress, method: method, target: target,
                status: response.status, requestBodyBytes: message.body.count, responseBodyBytes: response.body.count,
                reason: reason))
        guard case .success = sent, keepAlive else { return .close }
        return nil
    }

    /// Why a handler's response cannot be sent as it is, or nil.
    static func problem(with response: HTTPResponse) -> String? {
        guard (200...599).contains(response.status) else { return "status \(response.status) is not 200...599" }
        for field in response.headers.fields {
            guard !field.name.isEmpty, field.name.unicodeScalars.allSatisfy(HTTPMessageParser.isTokenCharacter) else {
                return "header field name '\(field.name)' is not a token"
            }
            if field.value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
                return "the value of header field '\(field.name)' contains CR, LF or NUL"
            }
        }
        return nil
    }

    /// The bytes of an answer: status line, the handler's fields but the framing ones, `Content-Length`,
    /// `Connection`, blank line, body.
    static func serialize(_ response: HTTPResponse, keepAlive: Bool, http10: Bool, omitBody: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(response.status) \(reasonPhrase(response.status))\r\n"
        for field in response.headers.fields
        where !["content-length", "transfer-encoding", "connection"].contains(field.name.lowercased()) {
            head += "\(field.name): \(field.value)\r\n"
        }
        let bodyless = response.status == 204 || response.status == 304
        if !bodyless { head += "Content-Length: \(response.body.count)\r\n" }
        if !keepAlive {
            head += "Connection: close\r\n"
        } else if http10 {
            head += "Connection: keep-alive\r\n"
        }
        head += "\r\n"
        var bytes = Array(head.utf8)
        if !omitBody && !bodyless { bytes += response.body }
        return bytes
    }

    /// Answers an error, logs it and ends the connection (the handler is not called).
    mutating func reject(status: Int, reason: String, head: (HTTPStartLine, HTTPHeaders)?, bodyBytes: Int = 0)
        -> ConnectionEnd
    {
        let body = "\(status) \(Self.reasonPhrase(status)): \(HTTPExchangeLogEntry.printable(reason, limit: 300))\n"
        var isHEAD = false
        if case .request(let method, _, _)? = head?.0 { isHEAD = method == "HEAD" }
        let response = HTTPResponse.text(status: status, body)
        let sent = connection.socket.send(
            Self.serialize(response, keepAlive: false, http10: false, omitBody: isHEAD), deadline: writeDeadline())
        var text = reason
        if case .failure(let failure) = sent { text += "; sending the answer failed: \(failure)" }
        log(head: head, status: status, reason: text, bodyBytes: bodyBytes, responseBytes: response.body.count)
        return .linger
    }

    func log(
        head: (HTTPStartLine, HTTPHeaders)?, status: Int?, reason: String, bodyBytes: Int = 0, responseBytes: Int = 0
    ) {
        var method: String?
        var target: String?
        if case .request(let m, let t, _)? = head?.0 {
            method = m
            target = t
        }
        server.emit(
            HTTPExchangeLogEntry(
                connection: connection.number, remoteAddress: connection.remoteAddress, method: method, target: target,
                status: status, requestBodyBytes: bodyBytes, responseBodyBytes: responseBytes, reason: reason))
    }

    /// RFC 9110's reason phrases for the statuses a server sends.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 417: return "Expectation Failed"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default:
            switch status / 100 {
            case 2: return "Success"
            case 3: return "Redirection"
            case 4: return "Client Error"
            default: return "Server Error"
            }
        }
    }
}

extension HTTPMessageParser {
    /// The head of the request whose body is arriving (nil between requests and while the head arrives).
    var headInProgress: (HTTPStartLine, HTTPHeaders)? {
        if case .head = state { return nil }
        return current
    }

    /// Drops one CRLF received where a request line should start (RFC 9112 §2.2: a server SHOULD ignore at least
    /// one, which some clients send after a body); true when it did.
    mutating func skipEmptyLineBeforeRequest() -> Bool {
        guard case .head = state, buffer.count - start >= 2, buffer[start] == 13, buffer[start + 1] == 10 else {
            return false
        }
        start += 2
        scanned = max(scanned, start)
        return true
    }

    /// What is wrong with the request line arriving, as soon as the bytes show it (so a client sending garbage is
    /// answered at once, not after the read timeout): 414 when it is longer than `limit` bytes, 400 for a byte a
    /// request line cannot have at its position, 505 for a version `HTTP/x.y` other than 1.0 and 1.1. Nil while it is
    /// well-formed so far, and once the head has been parsed.
    func startLineProblem(limit: Int) -> (status: Int, reason: String)? {
        guard case .head = state else { return nil }
        // 0: method, 1: target, 2: version.
        var part = 0
        var partStart = start
        var index = start
        let end = min(buffer.count, start + limit + 1)
        while index < end {
            let byte = buffer[index]
            if byte == 13 || byte == 10 {
                guard part == 2 else { return (400, "the request line does not have a method, a target and a version") }
                if byte == 10 { return (400, "the request line ends in LF without CR") }
                if index + 1 < buffer.count && buffer[index + 1] != 10 { return (400, "a CR not followed by LF") }
                let version = String(decoding: buffer[partStart..<index], as: UTF8.self)
                if Self.version(version) != nil { return nil }
                let digits = version.utf8.dropFirst(5)
                if version.hasPrefix("HTTP/") && !digits.isEmpty
                    && digits.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") })
                {
                    return (505, "HTTP version '\(version)' is not supported (HTTP/1.0 and HTTP/1.1 are)")
                }
                return (400, "malformed HTTP version '\(HTTPExchangeLogEntry.printable(version, limit: 40))'")
            }
            if byte == 0x20 {
                guard part < 2, index > partStart else {
                    return (400, "the request line has an empty part or more than two spaces")
                }
                part += 1
                partStart = index + 1
            } else {
                switch part {
                case 0:
                    guard Self.isTokenCharacter(Unicode.Scalar(byte)) else {
                        return (400, "the byte 0x\(hexByte(byte)) in the method (only token characters)")
                    }
                case 1:
                    guard byte > 0x20 && byte < 0x7F else {
                        return (400, "the byte 0x\(hexByte(byte)) in the request-target (only visible ASCII)")
                    }
                default:
                    let prefix = Array("HTTP/".utf8)
                    let offset = index - partStart
                    let fits =
                        offset < prefix.count
                        ? byte == prefix[offset] : (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: ".")
                    guard fits, offset < 16 else {
                        return (400, "the byte 0x\(hexByte(byte)) in the HTTP version")
                    }
                }
            }
            index += 1
        }
        if buffer.count - start > limit { return (414, "request line longer than \(limit) bytes") }
        return nil
    }
}
