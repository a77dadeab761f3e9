import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where requests go: an `http://` URL taken apart. `https://` is refused: this client has no TLS (`simctl --deliver`
/// sends `https://` through the toolchain's URLSession instead, in its own target).
public struct HTTPEndpoint: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16
    /// The request target: the path and query, `/` when the URL has none.
    public var target: String

    public init(host: String, port: UInt16, target: String = "/") {
        self.host = host
        self.port = port
        self.target = target
    }

    /// Reads `http://HOST[:PORT][/PATH[?QUERY]]`; the host may be a name, an IPv4 address or a bracketed IPv6
    /// address; the port defaults to 80.
    public init(url: String) throws(HTTPEndpointError) {
        let lower = url.lowercased()
        if lower.hasPrefix("https://") {
            throw HTTPEndpointError(
                url: url, message: "https is not supported by this client (it has no TLS); give it an http:// URL")
        }
        guard lower.hasPrefix("http://") else {
            throw HTTPEndpointError(
                url: url, message: "expected an http:// URL such as http://127.0.0.1:8080/notifications")
        }
        var rest = Substring(url.dropFirst("http://".count))
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if path.hasPrefix("?") { path = "/" + path }
        if path.isEmpty { path = "/" }
        guard !authority.contains("@") else {
            throw HTTPEndpointError(url: url, message: "user information in the URL is not supported")
        }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw HTTPEndpointError(url: url, message: "an IPv6 address needs a closing ']'")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else {
                    throw HTTPEndpointError(url: url, message: "expected ':PORT' after ']'")
                }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw HTTPEndpointError(url: url, message: "the URL has no host") }
        var port: UInt16 = 80
        if let portText {
            guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let number = UInt16(portText),
                number > 0
            else {
                throw HTTPEndpointError(
                    url: url, message: "the port must be a number from 1 to 65535, found '\(portText)'")
            }
            port = number
        }
        guard path.allSatisfy({ $0.isASCII && $0 > " " && $0 != "\u{7F}" }) else {
            throw HTTPEndpointError(
                url: url, message: "the path must be ASCII without spaces (percent-encode the rest)")
        }
        self.init(host: String(host), port: port, target: path)
    }

    /// The `Host` header's value.
    public var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 80 ? name : "\(name):\(port)"
    }

    public var description: String { "http://\(hostHeader)\(target)" }
}

/// A URL `HTTPEndpoint` cannot use.
public struct HTTPEndpointError: Error, Hashable, Sendable, CustomStringConvertible {
    public var url: String
    public var message: String

    public var description: String { "invalid delivery URL '\(url)': \(message)" }
}

/// A complete answer: what ``HTTPClient`` reads, and what an ``HTTPServer`` handler returns (see
/// HTTPServerMessages.swift for how the server frames it).
public struct HTTPResponse: Hashable, Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Why a request got no usable answer.
public enum HTTPClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No complete answer before the deadline (connecting, sending or reading).
    case timedOut
    /// The connection could not be made.
    case connectFailed(String)
    /// The connection failed while sending the request.
    case sendFailed(String)
    /// The connection closed or was reset before any byte of an answer.
    case noResponse
    /// The connection closed in the middle of the answer.
    case prematureClose
    /// The answer is not valid HTTP/1.x or breaks a size limit.
    case invalidResponse(String)
    /// Reading failed with an error other than a close or reset.
    case receiveFailed(String)
    /// ``HTTPClient/abort()`` cut the request short (or it was made after): the request may have been sent whole,
    /// in part or not at all, and no answer was read.
    case aborted

    public var description: String {
        switch self {
        case .timedOut: return "timed out"
        case .connectFailed(let reason): return "cannot connect: \(reason)"
        case .sendFailed(let reason): return "sending failed: \(reason)"
        case .noResponse: return "the connection closed without an answer"
        case .prematureClose: return "the connection closed in the middle of the answer"
        case .invalidResponse(let reason): return "invalid answer: \(reason)"
        case .receiveFailed(let reason): return "reading failed: \(reason)"
        case .aborted: return "cut short: the client was stopped"
        }
    }
}

/// An HTTP/1.1 client over one keep-alive connection to one endpoint: reconnects when the server closed it (seen
/// before sending; a request is never sent twice), and
/// gives each request one deadline covering connect, send and the whole answer. Not thread-safe: one caller at a
/// time (use one client per concurrent connection).
public final class HTTPClient {
    public let endpoint: HTTPEndpoint
    public let timeoutMilliseconds: Int64
    public let limits: HTTPLimits
    public let userAgent: String
    var socket: TCPSocket?
    var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// Connections opened so far (for tests of keep-alive).
    public private(set) var connectionsOpened = 0

    public init(
        endpoint: HTTPEndpoint, timeoutMilliseconds: Int64 = 5000, limits: HTTPLimits = HTTPLimits(),
        userAgent: String = "simctl"
    ) {
        self.endpoint = endpoint
        self.timeoutMilliseconds = timeoutMilliseconds
        self.limits = limits
        self.userAgent = userAgent
    }

    deinit { close() }

    /// Closes the kept-alive connection, if any.
    public func close() {
        abortState.lock()
        liveDescriptor = -1
        abortState.unlock()
        socket?.close()
        socket = nil
    }

    /// Guards ``aborted`` and ``liveDescriptor``: the only state another thread touches (``abort()``).
    let abortState = NSLock()
    /// Set by ``abort()``: every request from then on fails at once.
    var aborted = false
    /// The descriptor of the connection in use, for ``abort()``; -1 when none.
    var liveDescriptor: Int32 = -1

    /// Cuts the request in flight short, from any thread, and makes every later request fail at once with
    /// ``HTTPClientError/aborted``: shuts the connection down, which wakes the thread waiting on it (`simctl serve`
    /// stopping within its bound while a webhook is slow; docs/reliability.md).
    public func abort() {
        abortState.lock()
        defer { abortState.unlock() }
        aborted = true
        if liveDescriptor >= 0 { _ = shutdown(liveDescriptor, Int32(SHUT_RDWR)) }
    }

    var isAborted: Bool {
        abortState.lock()
        defer { abortState.unlock() }
        return aborted
    }

    /// POSTs `body` and reads the whole answer. `headers` (name, value) are sent after the standard ones.
    public func post(
        _ body: [UInt8], contentType: String = "application/json", headers: [(String, String)] = []
    ) -> Result<HTTPResponse, HTTPClientError> {
        var head = "POST \(endpoint.target) HTTP/1.1\r\nHost: \(endpoint.hostHeader)\r\n"
        head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nUser-Agent: \(userAgent)\r\n"
        head += "Accept: */*\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return send(Array(head.utf8) + body, method: "POST")
    }

    /// GETs `target` (a path and query on this client's host, e.g. `/entitlements/42`) and reads the whole answer.
    public func get(_ target: String, headers: [(String, String)] = []) -> Result<HTTPResponse, HTTPClientError> {
        var head = "GET \(target) HTTP/1.1\r\nHost: \(endpoint.hostHeader)\r\nUser-Agent: \(userAgent)\r\n"
        head += "Accept: application/json\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return send(Array(head.utf8), method: "GET")
    }

    /// Sends `request` once and reads its answer. A kept-alive connection the server has closed meanwhile (its close
    /// already arrived) is replaced by a fresh one before anything is sent; once bytes are sent, a failure is that
    /// request's answer, never a reason to send it again: a server that read the request and then dropped the
    /// connection may have acted on it, and each attempt the caller makes must be one request on the wire (delivery
    /// logs one attempt per call; docs/reliability.md).
    func send(_ request: [UInt8], method: String) -> Result<HTTPResponse, HTTPClientError> {
        let deadline = Deadline(millisecondsFromNow: timeoutMilliseconds)
        if isAborted { return .failure(.aborted) }
        if let socket, socket.isUnusable() { close() }
        let result = exchange(request, method: method, deadline: deadline)
        // A failure caused by abort() says so (the connection was shut down under the request).
        if case .failure = result, isAborted { return .failure(.aborted) }
        return result
    }

    func exchange(_ request: [UInt8], method: String, deadline: Deadline) -> Result<HTTPResponse, HTTPClientError> {
        if socket == nil {
            switch TCPSocket.connect(host: endpoint.host, port: endpoint.port, deadline: deadline) {
            case .success(let opened):
                socket = opened
                abortState.lock()
                liveDescriptor = opened.descriptor
                let cut = aborted
                abortState.unlock()
                if cut {
                    close()
                    return .failure(.aborted)
                }
                connectionsOpened += 1
            case .failure(.timedOut): return .failure(.timedOut)
            case .failure(.closed): return .failure(.connectFailed("the connection closed"))
            case .failure(.error(let reason)): return .failure(.connectFailed(reason))
            }
        }
        let connection = socket!
        switch connection.send(request, deadline: deadline) {
        case .success: break
        case .failure(let failure):
            close()
            switch failure {
            case .timedOut: return .failure(.timedOut)
            case .closed: return .failure(.sendFailed("the connection closed"))
            case .error(let reason): return .failure(.sendFailed(reason))
            }
        }
        var parser = HTTPMessageParser(role: .response, limits: limits)
        parser.nextResponseIsToHEAD = method == "HEAD"
        var received = 0
        while true {
            switch connection.receive(into: &readBuffer, deadline: deadline, waitFirst: received == 0) {
            case .success(let count):
                received += count
                parser.append(readBuffer[0..<count])
                do throws(HTTPParseError) {
                    if let message = try parser.next() {
                        guard case .response(_, let status, _) = message.startLine else {
                            close()
                            return .failure(.invalidResponse("not a response"))
                        }
                        // Bytes after the answer, or a close requested: the connection is not reused.
                        if !message.keepsConnectionOpen || parser.bufferedByteCount > 0 { close() }
                        return .success(HTTPResponse(status: status, headers: message.headers, body: message.body))
                    }
                } catch {
                    close()
                    return .failure(.invalidResponse(error.description))
                }
            case .failure(.timedOut):
                close()
                return .failure(.timedOut)
            case .failure(.closed):
                close()
                if received == 0 { return .failure(.noResponse) }
                do throws(HTTPParseError) {
                    if let message = try parser.endOfInput(), case .response(_, let status, _) = message.startLine {
                        return .success(HTTPResponse(status: status, headers: message.headers, body: message.body))
                    }
                    return .failure(.prematureClose)
                } catch {
                    return .failure(.prematureClose)
                }
            case .failure(.error(let reason)):
                close()
                return .failure(.receiveFailed(reason))
            }
        }
    }
}
