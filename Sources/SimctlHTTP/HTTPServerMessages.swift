/// One request as an ``HTTPServer`` hands it to its handler: complete (the whole body has arrived), validated
/// (well-formed request line, `Host` present, field values without control bytes, a request-target whose percent
/// escapes decode to UTF-8) and within the server's ``HTTPServerLimits``.
public struct HTTPRequest: Sendable {
    /// The method as sent (`GET`, `POST`, ...; case-sensitive, any token: unknown methods reach the handler).
    public var method: String
    /// The request-target exactly as sent, e.g. `/inApps/v1/history/123?revision=abc`.
    public var target: String
    /// The percent-decoded path without the query, e.g. `/inApps/v1/history/123` (`+` stays `+`). For an
    /// absolute-form target (`http://host/p?q`) the path of the URL; for `OPTIONS *` the string `*`.
    public var path: String
    /// The path's segments split at `/` before percent-decoding, each then decoded: `/a%2Fb/c` is `["", "a/b", "c"]`
    /// (its `path` is `/a/b/c`), so an escaped `/` never separates segments. `["*"]` for `OPTIONS *`.
    public var pathSegments: [String]
    /// The percent-decoded query items in order; `+` is a space; an item without `=` has an empty value.
    public var query: [(name: String, value: String)]
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The peer's address and port, `127.0.0.1:53122` or `[::1]:53122`.
    public var remoteAddress: String
    /// `HTTP/1.1` or `HTTP/1.0`.
    public var version: HTTPVersion

    public init(
        method: String, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        remoteAddress: String = "127.0.0.1:0", version: HTTPVersion = HTTPVersion(major: 1, minor: 1)
    ) throws(HTTPTargetError) {
        let (path, segments, query) = try HTTPRequest.decodeTargetParts(target)
        self.method = method
        self.target = target
        self.path = path
        self.pathSegments = segments
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.version = version
    }

    /// The value of the first query item named `name`.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// Every value of the query items named `name`, in order.
    public func queryValues(_ name: String) -> [String] { query.filter { $0.name == name }.map(\.value) }

    /// Splits and decodes a request-target (RFC 9112 §3.2): origin-form `/path?query`, absolute-form
    /// `http://authority/path?query`, or `*`. Bytes must be visible ASCII; `%XX` escapes must be two hex digits and
    /// decode to UTF-8 without NUL.
    public static func decodeTarget(_ target: String) throws(HTTPTargetError) -> (
        path: String, query: [(name: String, value: String)]
    ) {
        let (path, _, query) = try decodeTargetParts(target)
        return (path, query)
    }

    /// ``decodeTarget(_:)`` with the path's segments, split before percent-decoding (``pathSegments``).
    static func decodeTargetParts(_ target: String) throws(HTTPTargetError) -> (
        path: String, segments: [String], query: [(name: String, value: String)]
    ) {
        let bytes = Array(target.utf8)
        guard !bytes.isEmpty else { throw HTTPTargetError(target: target, reason: "the request-target is empty") }
        if let bad = bytes.first(where: { $0 < 0x21 || $0 > 0x7E }) {
            throw HTTPTargetError(
                target: target, reason: "the request-target contains the byte 0x\(hexByte(bad)) (only visible ASCII)")
        }
        if bytes.contains(UInt8(ascii: "#")) {
            throw HTTPTargetError(target: target, reason: "the request-target contains a fragment ('#')")
        }
        if bytes == [UInt8(ascii: "*")] { return ("*", ["*"], []) }
        var rest = bytes[...]
        if bytes.first != UInt8(ascii: "/") {
            let lower = String(decoding: bytes.prefix(8), as: UTF8.self).lowercased()
            let schemeLength = lower.hasPrefix("http://") ? 7 : lower.hasPrefix("https://") ? 8 : 0
            guard schemeLength > 0 else {
                throw HTTPTargetError(
                    target: target, reason: "the request-target must start with '/' (or be an absolute http URL)")
            }
            rest = rest.dropFirst(schemeLength)
            guard let slash = rest.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) else {
                return ("/", ["", ""], [])
            }
            rest = rest[slash...]
        }
        let questionMark = rest.firstIndex(of: UInt8(ascii: "?"))
        let rawPath = rest[..<(questionMark ?? rest.endIndex)]
        var path = try percentDecode(rawPath, plusIsSpace: false, target: target)
        if path.isEmpty || !path.hasPrefix("/") { path = "/" + path }
        var segments: [String] = []
        for raw in rawPath.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            segments.append(try percentDecode(raw, plusIsSpace: false, target: target))
        }
        if segments.count < 2 { segments = ["", segments.first ?? ""] }
        var query: [(name: String, value: String)] = []
        if let questionMark {
            for item in rest[(questionMark + 1)...].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true)
            {
                let equals = item.firstIndex(of: UInt8(ascii: "="))
                let name = try percentDecode(item[..<(equals ?? item.endIndex)], plusIsSpace: true, target: target)
                var value = ""
                if let equals { value = try percentDecode(item[(equals + 1)...], plusIsSpace: true, target: target) }
                query.append((name, value))
            }
        }
        return (path, segments, query)
    }

    static func percentDecode(_ bytes: ArraySlice<UInt8>, plusIsSpace: Bool, target: String) throws(HTTPTargetError)
        -> String
    {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex,
                    let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
                else {
                    let escape = String(decoding: bytes[index..<min(index + 3, bytes.endIndex)], as: UTF8.self)
                    throw HTTPTargetError(target: target, reason: "invalid percent escape '\(escape)'")
                }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(plusIsSpace && byte == UInt8(ascii: "+") ? 0x20 : byte)
                index += 1
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else {
            throw HTTPTargetError(target: target, reason: "percent escapes that do not decode to UTF-8")
        }
        if out.contains(0) { throw HTTPTargetError(target: target, reason: "a percent-encoded NUL ('%00')") }
        return text
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
}

func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
}

/// Why a request-target cannot be decoded (the server answers 400 with the reason).
public struct HTTPTargetError: Error, Hashable, Sendable, CustomStringConvertible {
    public var target: String
    public var reason: String
    public var description: String { "invalid request-target: \(reason)" }
}

extension HTTPResponse {
    /// `Content-Type: application/json` and the UTF-8 bytes of `text`.
    public static func json(status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: HTTPHeaders([HTTPField(name: "Content-Type", value: "application/json")]),
            body: Array(text.utf8))
    }

    /// `Content-Type: text/plain; charset=utf-8` and the UTF-8 bytes of `text`.
    public static func text(status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: HTTPHeaders([HTTPField(name: "Content-Type", value: "text/plain; charset=utf-8")]),
            body: Array(text.utf8))
    }
}

/// The size limits of an ``HTTPServer``. A request over one of them is answered with the status named below,
/// `Connection: close`, and logged with the reason; the handler never sees it. Memory per connection stays bounded
/// by `maximumHeadBytes + maximumBodyBytes` plus one read buffer.
public struct HTTPServerLimits: Hashable, Sendable {
    /// The request line (`METHOD target HTTP/1.1`, without its CRLF): longer is **414 URI Too Long**.
    /// Default 8,192 bytes.
    public var maximumRequestLineBytes: Int
    /// The request line and all header fields together (up to the blank line): larger is **431 Request Header
    /// Fields Too Large**. Default 16,384 bytes.
    public var maximumHeadBytes: Int
    /// The number of header fields: more is **431 Request Header Fields Too Large**. Default 100.
    public var maximumHeaderCount: Int
    /// The body (`Content-Length`, or the decoded chunks of `Transfer-Encoding: chunked`): larger is **413 Content
    /// Too Large**, answered as soon as the declared length or the running chunk total exceeds it (the body is not
    /// read). Default 1,048,576 bytes (1 MiB).
    public var maximumBodyBytes: Int

    public init(
        maximumRequestLineBytes: Int = 8192, maximumHeadBytes: Int = 16 * 1024, maximumHeaderCount: Int = 100,
        maximumBodyBytes: Int = 1 << 20
    ) {
        self.maximumRequestLineBytes = maximumRequestLineBytes
        self.maximumHeadBytes = maximumHeadBytes
        self.maximumHeaderCount = maximumHeaderCount
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// The parser's limits for these.
    var parserLimits: HTTPLimits {
        HTTPLimits(
            maximumHeadBytes: maximumHeadBytes, maximumHeaderCount: maximumHeaderCount,
            maximumBodyBytes: maximumBodyBytes, maximumChunkLineBytes: 1024)
    }
}

/// Where an ``HTTPServer`` listens and how it bounds its clients. Every field has a default.
public struct HTTPServerConfiguration: Sendable {
    /// The address to bind: a numeric IPv4 or IPv6 address or a host name resolving to one. Default `127.0.0.1`
    /// (loopback: only this machine can connect); `0.0.0.0` or `::` listen on every interface and only when asked.
    public var host: String = "127.0.0.1"
    /// The port; 0 (the default) lets the system pick a free one (read it back from ``HTTPServer/port``).
    public var port: UInt16 = 0
    /// Request size limits (414, 431, 413).
    public var limits: HTTPServerLimits = HTTPServerLimits()
    /// Seconds a request may take to arrive completely once its first byte has arrived (a client trickling a request
    /// in, "slowloris", gets **408 Request Timeout** and the connection closes), and seconds an idle keep-alive
    /// connection is kept open waiting for its next request (then closed without an answer). Default 10.
    public var readTimeout: Double = 10
    /// Seconds a response may take to be written (a client that stops reading is disconnected). Default 10.
    public var writeTimeout: Double = 10
    /// Open connections served at once; each has its own thread. A connection beyond this is answered **503 Service
    /// Unavailable** with `Connection: close` at once, without reading its request. Default 256. (A client holding
    /// connections open with requests that never complete holds its slots until the read timeout: this is a server
    /// for tests on one machine, not one facing the internet.)
    public var maximumConnections: Int = 256
    /// Seconds the server keeps reading and discarding what a client still sends after an error answer before it
    /// closes (so the client reads the answer instead of a connection reset). Default 2.
    public var lingerSeconds: Double = 2
    /// The stack size of each connection's thread, where the handler runs. Default 4 MiB (reserved address space;
    /// pages are used as the stack grows).
    public var threadStackBytes: Int = 4 << 20

    public init(
        host: String = "127.0.0.1", port: UInt16 = 0, limits: HTTPServerLimits = HTTPServerLimits(),
        readTimeout: Double = 10, writeTimeout: Double = 10, maximumConnections: Int = 256, lingerSeconds: Double = 2,
        threadStackBytes: Int = 4 << 20
    ) {
        self.threadStackBytes = threadStackBytes
        self.host = host
        self.port = port
        self.limits = limits
        self.readTimeout = readTimeout
        self.writeTimeout = writeTimeout
        self.maximumConnections = maximumConnections
        self.lingerSeconds = lingerSeconds
    }
}

/// One line of an ``HTTPServer``'s log: an answered request, or a connection closed without an answer to a request
/// that had started to arrive (or to no request at all). The server calls its log function once per entry, one at
/// a time (never concurrently).
public struct HTTPExchangeLogEntry: Hashable, Sendable {
    /// The connection's number, counting from 1 in the order accepted.
    public var connection: Int
    /// The peer, `127.0.0.1:53122`.
    public var remoteAddress: String
    /// Nil when the request line was not readable (too long, malformed, never arrived).
    public var method: String?
    public var target: String?
    /// The status answered, or nil when the connection closed without an answer.
    public var status: Int?
    /// Bytes of the request body received (0 when rejected before the body).
    public var requestBodyBytes: Int
    /// Bytes of the response body (as a HEAD answer would have had; nothing is sent for HEAD).
    public var responseBodyBytes: Int
    /// Why the server rejected or dropped the request (`request line longer than 8192 bytes`, `read timeout`, ...);
    /// nil for a request the handler answered.
    public var reason: String?

    public init(
        connection: Int, remoteAddress: String, method: String? = nil, target: String? = nil, status: Int? = nil,
        requestBodyBytes: Int = 0, responseBodyBytes: Int = 0, reason: String? = nil
    ) {
        self.connection = connection
        self.remoteAddress = remoteAddress
        self.method = method
        self.target = target
        self.status = status
        self.requestBodyBytes = requestBodyBytes
        self.responseBodyBytes = responseBodyBytes
        self.reason = reason
    }

    /// One readable line, e.g. `#3 127.0.0.1:53122 "GET /inApps/v1/history/1" 200 in=0 out=512` or
    /// `#4 127.0.0.1:53124 "-" 414 in=0 out=43 (request line longer than 8192 bytes)`. Control and non-ASCII bytes of
    /// the method and target are escaped (`\x00`) and a target longer than 200 characters is cut with `...`, so a
    /// hostile request cannot forge log lines.
    public var line: String {
        let request = method.map { Self.printable($0, limit: 32) + " " + Self.printable(target ?? "", limit: 200) }
        var text = "#\(connection) \(remoteAddress) \"\(request ?? "-")\" \(status.map(String.init) ?? "closed")"
        text += " in=\(requestBodyBytes) out=\(responseBodyBytes)"
        if let reason { text += " (\(Self.printable(reason, limit: 300)))" }
        return text
    }

    static func printable(_ text: String, limit: Int) -> String {
        var out = ""
        var count = 0
        for byte in text.utf8 {
            if count >= limit {
                out += "..."
                break
            }
            if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "\\x" + hexByte(byte)
            }
            count += 1
        }
        return out
    }
}

/// Why an ``HTTPServer`` cannot start.
public struct HTTPServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `127.0.0.1:8080`
    public var address: String
    /// `address already in use`, `cannot resolve host 'x'`, ...
    public var reason: String
    public var description: String { "cannot listen on \(address): \(reason)" }
}
