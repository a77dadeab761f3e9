import Foundation
import Testing

@testable import SimctlHTTP

/// A raw client for server tests: sends bytes as they are and reads answers with the response parser.
final class RawConnection {
    let socket: TCPSocket
    var parser = HTTPMessageParser(role: .response, limits: HTTPLimits(maximumBodyBytes: 8 << 20))
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// Every byte received so far.
    var received: [UInt8] = []

    init(port: UInt16, timeoutMilliseconds: Int64 = 5000) throws {
        switch TCPSocket.connect(
            host: "127.0.0.1", port: port, deadline: Deadline(millisecondsFromNow: timeoutMilliseconds))
        {
        case .success(let socket): self.socket = socket
        case .failure(let failure): throw RawConnectionError(description: "connect: \(failure)")
        }
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        if case .success = socket.send(bytes, deadline: Deadline(millisecondsFromNow: 5000)) { return true }
        return false
    }

    /// The next complete answer; nil when the connection closed (or reset, or timed out) before one.
    func response(headRequest: Bool = false, timeoutMilliseconds: Int64 = 5000) -> HTTPMessage? {
        parser.nextResponseIsToHEAD = headRequest
        let deadline = Deadline(millisecondsFromNow: timeoutMilliseconds)
        while true {
            do throws(HTTPParseError) {
                if let message = try parser.next() { return message }
            } catch {
                return nil
            }
            switch socket.receive(into: &buffer, deadline: deadline) {
            case .success(let count):
                received += buffer[0..<count]
                parser.append(buffer[0..<count])
            case .failure:
                return try? parser.endOfInput()
            }
        }
    }

    /// True when the server closed the connection (read returns 0 or a reset) before the deadline, discarding
    /// anything that still arrives.
    func isClosedByServer(timeoutMilliseconds: Int64 = 5000) -> Bool {
        let deadline = Deadline(millisecondsFromNow: timeoutMilliseconds)
        while true {
            switch socket.receive(into: &buffer, deadline: deadline) {
            case .success(let count): received += buffer[0..<count]
            case .failure(.closed), .failure(.error): return true
            case .failure(.timedOut): return false
            }
        }
    }

    func close() { socket.close() }

    /// Closes with a reset (SO_LINGER 0) instead of a FIN.
    func reset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(socket.descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        socket.close()
    }
}

struct RawConnectionError: Error, CustomStringConvertible {
    var description: String
}

/// Thread-safe collections for handlers and log functions.
final class Collected<Element: Sendable>: @unchecked Sendable {
    let lock = NSLock()
    var items: [Element] = []

    func add(_ item: Element) {
        lock.lock()
        items.append(item)
        lock.unlock()
    }

    var all: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }

    var count: Int { all.count }
}

/// A started server on 127.0.0.1, its handler's calls and its log.
struct TestServer {
    let server: HTTPServer
    let requests: Collected<HTTPRequest>
    let log: Collected<HTTPExchangeLogEntry>

    init(
        _ configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
        handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse = { request in
            .text(status: 200, "\(request.method) \(request.path)")
        }
    ) throws {
        let requests = Collected<HTTPRequest>()
        let log = Collected<HTTPExchangeLogEntry>()
        server = try HTTPServer(configuration: configuration, log: { log.add($0) }) { request in
            requests.add(request)
            return handler(request)
        }
        self.requests = requests
        self.log = log
        server.start()
    }

    var port: UInt16 { server.port }

    func connect() throws -> RawConnection { try RawConnection(port: port) }

    /// The log entries, once there are at least `count` (a log entry is written after its answer is sent).
    func entries(atLeast count: Int) -> [HTTPExchangeLogEntry] {
        for _ in 0..<500 where log.count < count { usleep(10_000) }
        return log.all
    }

    /// The log entries with a reason (rejections and drops), once `count` of them are there (the log line of a
    /// rejection is written after the answer is sent, so a test that has read the answer may need to wait a moment).
    func reasons(atLeast count: Int) -> [String] {
        for _ in 0..<500 {
            let found = log.all.compactMap(\.reason)
            if found.count >= count { return found }
            usleep(10_000)
        }
        return log.all.compactMap(\.reason)
    }
}

/// `GET path` with a Host header.
func get(_ path: String, headers: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)\r\n"
}

func text(_ message: HTTPMessage?) -> String? { message.map { String(decoding: $0.body, as: UTF8.self) } }

func status(_ message: HTTPMessage?) -> Int? {
    guard case .response(_, let status, _)? = message?.startLine else { return nil }
    return status
}
