/// Size limits of one HTTP/1.1 message; a message over any of them is an error, so memory stays bounded whatever the
/// peer sends.
public struct HTTPLimits: Hashable, Sendable {
    /// Start line and header fields together, and separately the trailer fields of a chunked body.
    public var maximumHeadBytes: Int
    public var maximumHeaderCount: Int
    public var maximumBodyBytes: Int
    /// One chunk-size line of a chunked body.
    public var maximumChunkLineBytes: Int

    public init(
        maximumHeadBytes: Int = 16 * 1024, maximumHeaderCount: Int = 100, maximumBodyBytes: Int = 1 << 20,
        maximumChunkLineBytes: Int = 1024
    ) {
        self.maximumHeadBytes = maximumHeadBytes
        self.maximumHeaderCount = maximumHeaderCount
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumChunkLineBytes = maximumChunkLineBytes
    }
}

/// Header fields in the order received; names compare case-insensitively.
public struct HTTPHeaders: Hashable, Sendable {
    public var fields: [HTTPField]

    public init(_ fields: [HTTPField] = []) { self.fields = fields }

    /// The first value of `name`.
    public subscript(name: String) -> String? { fields.first { Self.sameName($0.name, name) }?.value }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// ASCII case-insensitive equality of field names (names are tokens: ASCII only), without allocating.
    static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count
            && zip(a.utf8, b.utf8).allSatisfy { x, y in
                x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A)
            }
    }
}

public struct HTTPField: Hashable, Sendable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The first line of a message.
public enum HTTPStartLine: Hashable, Sendable {
    /// `POST /path HTTP/1.1`
    case request(method: String, target: String, version: HTTPVersion)
    /// `HTTP/1.1 200 OK`
    case response(version: HTTPVersion, status: Int, reason: String)
}

public struct HTTPVersion: Hashable, Sendable {
    public var major: Int
    public var minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }
}

/// One complete message.
public struct HTTPMessage: Hashable, Sendable {
    public var startLine: HTTPStartLine
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public var version: HTTPVersion {
        switch startLine {
        case .request(_, _, let version), .response(let version, _, _): return version
        }
    }

    /// Whether the connection may carry another message after this one (HTTP/1.1 unless `Connection: close`;
    /// HTTP/1.0 only with `Connection: keep-alive`).
    public var keepsConnectionOpen: Bool {
        let tokens = headers.values("Connection").flatMap { $0.split(separator: ",") }.map {
            $0.trimmingHTTPWhitespace().lowercased()
        }
        if tokens.contains("close") { return false }
        return version.minor >= 1 || tokens.contains("keep-alive")
    }
}

/// Why bytes are not an HTTP/1.1 message.
public enum HTTPParseError: Error, Hashable, Sendable, CustomStringConvertible {
    case headTooLarge(limit: Int)
    case tooManyHeaders(limit: Int)
    case bodyTooLarge(limit: Int)
    case malformedStartLine(String)
    case malformedHeader(String)
    case invalidContentLength(String)
    case unsupportedTransferEncoding(String)
    case invalidChunk(String)
    /// The input ended inside a message.
    case truncated

    public var description: String {
        switch self {
        case .headTooLarge(let limit): return "the header section is larger than \(limit) bytes"
        case .tooManyHeaders(let limit): return "more than \(limit) header fields"
        case .bodyTooLarge(let limit): return "the body is larger than \(limit) bytes"
        case .malformedStartLine(let line): return "malformed start line '\(line)'"
        case .malformedHeader(let line): return "malformed header field '\(line)'"
        case .invalidContentLength(let value): return "invalid Content-Length '\(value)'"
        case .unsupportedTransferEncoding(let value): return "unsupported Transfer-Encoding '\(value)'"
        case .invalidChunk(let line): return "invalid chunk size line '\(line)'"
        case .truncated: return "the input ended in the middle of a message"
        }
    }
}

/// An incremental HTTP/1.1 message parser for both sides of a connection: append bytes as they arrive, take
/// complete messages with ``next()``. Bodies framed by `Content-Length`, `Transfer-Encoding: chunked` or (responses
/// only) the end of the connection. Every buffer is bounded by ``HTTPLimits``; after an error the parser is spent.
///
/// Strict where leniency invites ambiguity (RFC 9112): lines end in CRLF, no folded header lines, no whitespace
/// before a field's colon, both `Content-Length` and `Transfer-Encoding` is an error, differing `Content-Length`
/// values are an error.
public struct HTTPMessageParser: Sendable {
    public enum Role: Sendable {
        /// Parses requests (a server's side).
        case request
        /// Parses responses (a client's side).
        case response
    }

    enum State: Sendable {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(bytes: Int)
        case untilClose
    }

    public let role: Role
    public let limits: HTTPLimits
    var buffer: [UInt8] = []
    var start = 0
    /// Where the search for the end of the head resumes.
    var scanned = 0
    var state = State.head
    var current: (HTTPStartLine, HTTPHeaders)?
    var body: [UInt8] = []
    /// For responses: the next one answers a HEAD request (no body).
    public var nextResponseIsToHEAD = false

    public init(role: Role, limits: HTTPLimits = HTTPLimits()) {
        self.role = role
        self.limits = limits
    }

    /// Bytes received and not yet part of a returned message.
    public var bufferedByteCount: Int { buffer.count - start + body.count }
    /// True between messages with nothing buffered.
    public var isIdle: Bool {
        if case .head = state { return buffer.count == start }
        return false
    }
    /// True when some of a message has arrived (a close now is premature).
    public var hasPartialMessage: Bool { !isIdle }

    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if start > 4096 && start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete message, or nil when more bytes are needed. Interim (1xx) responses are skipped.
    public mutating func next() throws(HTTPParseError) -> HTTPMessage? {
        while true {
            switch state {
            case .head:
                guard let end = headEnd() else {
                    if buffer.count - start > limits.maximumHeadBytes {
                        throw .headTooLarge(limit: limits.maximumHeadBytes)
                    }
                    return nil
                }
                if end - start > limits.maximumHeadBytes { throw .headTooLarge(limit: limits.maximumHeadBytes) }
                let head = try parseHead(buffer[start..<(end - 4)])
                start = end
                scanned = end
                if case .response(_, let status, _) = head.0, (100...199).contains(status), status != 101 {
                    continue  // interim response: the final one follows
                }
                current = head
                body = []
                state = try bodyFraming(head.0, head.1)
                if case .fixed(0) = state { return finish() }
            case .fixed(let remaining):
                let take = min(remaining, buffer.count - start)
                body.append(contentsOf: buffer[start..<(start + take)])
                start += take
                if take < remaining {
                    state = .fixed(remaining: remaining - take)
                    return nil
                }
                return finish()
            case .chunkSize:
                guard let line = try takeLine(limit: limits.maximumChunkLineBytes) else { return nil }
                let sizeText = line.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
                    .trimmingHTTPWhitespace()
                guard !sizeText.isEmpty, sizeText.count <= 15, sizeText.allSatisfy(\.isHexDigit),
                    let size = Int(sizeText, radix: 16)
                else { throw .invalidChunk(line) }
                if size == 0 {
                    state = .trailers(bytes: 0)
                } else {
                    if body.count + size > limits.maximumBodyBytes {
                        throw .bodyTooLarge(limit: limits.maximumBodyBytes)
                    }
                    state = .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                let take = min(remaining, buffer.count - start)
                body.append(contentsOf: buffer[start..<(start + take)])
                start += take
                if take < remaining {
                    state = .chunkData(remaining: remaining - take)
                    return nil
                }
                state = .chunkDataEnd
            case .chunkDataEnd:
                guard buffer.count - start >= 2 else { return nil }
                guard buffer[start] == 13, buffer[start + 1] == 10 else {
                    throw .invalidChunk("chunk data not followed by CRLF")
                }
                start += 2
                state = .chunkSize
            case .trailers(let bytes):
                guard let line = try takeLine(limit: limits.maximumHeadBytes - bytes) else { return nil }
                if line.isEmpty { return finish() }
                state = .trailers(bytes: bytes + line.utf8.count + 2)
            case .untilClose:
                let take = buffer.count - start
                if body.count + take > limits.maximumBodyBytes { throw .bodyTooLarge(limit: limits.maximumBodyBytes) }
                body.append(contentsOf: buffer[start...])
                start = buffer.count
                scanned = start
                return nil
            }
        }
    }

    /// The peer closed the connection: completes a body that runs to the end of the connection; nil when idle.
    public mutating func endOfInput() throws(HTTPParseError) -> HTTPMessage? {
        if case .untilClose = state { return finish() }
        if isIdle { return nil }
        throw .truncated
    }

    mutating func finish() -> HTTPMessage {
        let (startLine, headers) = current!
        let message = HTTPMessage(startLine: startLine, headers: headers, body: body)
        current = nil
        body = []
        state = .head
        scanned = start
        nextResponseIsToHEAD = false
        return message
    }

    /// The index just past the CRLFCRLF that ends the head, if it has arrived.
    mutating func headEnd() -> Int? {
        var index = max(start, scanned - 3)
        let end = buffer.count
        while index + 3 < end {
            if buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
                return index + 4
            }
            index += 1
        }
        scanned = max(start, end)
        return nil
    }

    /// A CRLF-terminated line (without the CRLF), or nil when it has not fully arrived.
    mutating func takeLine(limit: Int) throws(HTTPParseError) -> String? {
        var index = start
        while index + 1 < buffer.count {
            if buffer[index] == 13 && buffer[index + 1] == 10 {
                let line = String(decoding: buffer[start..<index], as: UTF8.self)
                start = index + 2
                return line
            }
            if index - start > limit { throw .headTooLarge(limit: limit) }
            index += 1
        }
        if buffer.count - start > limit { throw .headTooLarge(limit: limit) }
        return nil
    }

    func parseHead(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> (HTTPStartLine, HTTPHeaders) {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 13 {
                guard index + 1 < bytes.endIndex, bytes[index + 1] == 10 else {
                    throw .malformedHeader(String(decoding: bytes[lineStart..<index], as: UTF8.self))
                }
                lines.append(bytes[lineStart..<index])
                index += 2
                lineStart = index
                continue
            }
            if bytes[index] == 10 { throw .malformedHeader("a line ends in LF without CR") }
            index += 1
        }
        lines.append(bytes[lineStart..<bytes.endIndex])
        let startLine = try parseStartLine(String(decoding: lines[0], as: UTF8.self))
        if lines.count - 1 > limits.maximumHeaderCount { throw .tooManyHeaders(limit: limits.maximumHeaderCount) }
        var fields: [HTTPField] = []
        for raw in lines.dropFirst() {
            let line = String(decoding: raw, as: UTF8.self)
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else { throw .malformedHeader(line) }
            let name = String(line[..<colon])
            guard name.unicodeScalars.allSatisfy(Self.isTokenCharacter) else { throw .malformedHeader(line) }
            let value = line[line.index(after: colon)...].trimmingHTTPWhitespace()
            fields.append(HTTPField(name: name, value: value))
        }
        return (startLine, HTTPHeaders(fields))
    }

    func parseStartLine(_ line: String) throws(HTTPParseError) -> HTTPStartLine {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        switch role {
        case .request:
            guard parts.count == 3, !parts[0].isEmpty, parts[0].unicodeScalars.allSatisfy(Self.isTokenCharacter),
                !parts[1].isEmpty, !parts[1].contains(" "), let version = Self.version(parts[2])
            else { throw .malformedStartLine(line) }
            return .request(method: parts[0], target: parts[1], version: version)
        case .response:
            guard parts.count >= 2, let version = Self.version(parts[0]), parts[1].count == 3,
                parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let status = Int(parts[1]), status >= 100
            else { throw .malformedStartLine(line) }
            return .response(version: version, status: status, reason: parts.count == 3 ? parts[2] : "")
        }
    }

    /// `HTTP/1.0` or `HTTP/1.1`.
    static func version(_ text: String) -> HTTPVersion? {
        switch text {
        case "HTTP/1.1": return HTTPVersion(major: 1, minor: 1)
        case "HTTP/1.0": return HTTPVersion(major: 1, minor: 0)
        default: return nil
        }
    }

    /// RFC 9110 `tchar`: visible ASCII except the delimiters `"(),/:;<=>?@[\]{}`.
    static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x30...0x39, 0x41...0x5A, 0x5E...0x7A, 0x7C, 0x7E: return true
        default: return false
        }
    }

    /// How the body of the message with this head is delimited (RFC 9112 §6.3).
    mutating func bodyFraming(_ startLine: HTTPStartLine, _ headers: HTTPHeaders) throws(HTTPParseError) -> State {
        if case .response(_, let status, _) = startLine,
            nextResponseIsToHEAD || status == 204 || status == 304 || (100...199).contains(status)
        {
            return .fixed(remaining: 0)
        }
        let encodings = headers.values("Transfer-Encoding")
        let lengths = headers.values("Content-Length")
        if !encodings.isEmpty {
            let codings = encodings.flatMap { $0.split(separator: ",") }.map {
                $0.trimmingHTTPWhitespace().lowercased()
            }
            guard codings == ["chunked"] else { throw .unsupportedTransferEncoding(encodings.joined(separator: ", ")) }
            guard lengths.isEmpty else {
                throw .invalidContentLength("Content-Length together with Transfer-Encoding")
            }
            return .chunkSize
        }
        if !lengths.isEmpty {
            let values = Set(lengths.flatMap { $0.split(separator: ",") }.map { $0.trimmingHTTPWhitespace() })
            guard values.count == 1, let text = values.first, !text.isEmpty, text.count <= 18,
                text.allSatisfy({ $0.isASCII && $0.isNumber }), let length = Int(text)
            else { throw .invalidContentLength(lengths.joined(separator: ", ")) }
            if length > limits.maximumBodyBytes { throw .bodyTooLarge(limit: limits.maximumBodyBytes) }
            return .fixed(remaining: length)
        }
        switch role {
        case .request: return .fixed(remaining: 0)
        case .response: return .untilClose
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    func trimmingHTTPWhitespace() -> String {
        var scalars = Substring(self).unicodeScalars[...]
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}
