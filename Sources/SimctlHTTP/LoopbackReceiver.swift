import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a ``LoopbackReceiver`` does with one request.
public enum ReceiverReply: Hashable, Sendable {
    /// Answers with this status and body.
    case respond(status: Int, body: String)
    /// Closes the connection without answering.
    case close
    /// Never answers; the connection is held until the receiver stops.
    case hold
    /// Writes these bytes as they are, then closes the connection (for tests of broken answers).
    case raw(String)
}

/// A minimal HTTP/1.1 receiver for tests and benchmarks: binds 127.0.0.1 on a free port, one thread per
/// connection, keep-alive, and a handler deciding each reply. Not a production server.
public final class LoopbackReceiver: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPMessage) -> ReceiverReply
    /// A handler that is also told the request's number on its connection (1 for a connection's first request).
    public typealias ConnectionHandler = @Sendable (HTTPMessage, _ onConnection: Int) -> ReceiverReply

    public let port: UInt16
    let listener: Int32
    let handler: ConnectionHandler
    let limits: HTTPLimits
    let lock = NSLock()
    var stopped = false
    var connections: [ObjectIdentifier: TCPSocket] = [:]
    var threads = 0
    let finished = NSCondition()

    /// Starts listening on 127.0.0.1 (a free port unless `port` is given).
    public convenience init(port: UInt16 = 0, limits: HTTPLimits = HTTPLimits(), handler: @escaping Handler) throws {
        try self.init(port: port, limits: limits, connectionHandler: { message, _ in handler(message) })
    }

    /// Starts listening like ``init(port:limits:handler:)``, with a handler that also gets each request's number on
    /// its connection (a receiver that drops every second request of a kept-alive connection, say).
    public init(port: UInt16 = 0, limits: HTTPLimits = HTTPLimits(), connectionHandler: @escaping ConnectionHandler)
        throws
    {
        self.handler = connectionHandler
        self.limits = limits
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw ReceiverError(message: TCPSocket.errorText("socket")) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            let text = TCPSocket.errorText("bind/listen")
            TCPSocket(descriptor: fd).close()
            throw ReceiverError(message: text)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = UInt16(bigEndian: address.sin_port)
        self.listener = fd
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        startThread { [self] in acceptLoop() }
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    public func url(path: String = "/") -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops accepting, closes every connection, and waits for the threads to end.
    public func stop() {
        lock.lock()
        let wasStopped = stopped
        stopped = true
        let open = Array(connections.values)
        lock.unlock()
        if wasStopped { return }
        _ = shutdown(listener, Int32(SHUT_RDWR))
        for connection in open { connection.shutdownBoth() }
        finished.lock()
        while threads > 0 { finished.wait() }
        finished.unlock()
        TCPSocket(descriptor: listener).close()
    }

    deinit { stop() }

    var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    func startThread(_ body: @escaping @Sendable () -> Void) {
        finished.lock()
        threads += 1
        finished.unlock()
        let thread = Thread { [self] in
            body()
            finished.lock()
            threads -= 1
            finished.broadcast()
            finished.unlock()
        }
        thread.stackSize = 256 * 1024
        thread.start()
    }

    func acceptLoop() {
        while !isStopped {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 100) <= 0 { continue }
            let fd = accept(listener, nil, nil)
            if fd < 0 { continue }
            let connection = TCPSocket(descriptor: fd)
            lock.lock()
            if stopped {
                lock.unlock()
                connection.close()
                return
            }
            connections[ObjectIdentifier(connection)] = connection
            lock.unlock()
            let box = UncheckedBox(connection)
            startThread { [self] in serve(box.value) }
        }
    }

    func serve(_ connection: TCPSocket) {
        defer {
            lock.lock()
            connections[ObjectIdentifier(connection)] = nil
            lock.unlock()
            connection.close()
        }
        var parser = HTTPMessageParser(role: .request, limits: limits)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var requests = 0
        while !isStopped {
            let message: HTTPMessage?
            do throws(HTTPParseError) { message = try parser.next() } catch {
                _ = connection.send(
                    Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8),
                    deadline: Deadline(millisecondsFromNow: 1000))
                return
            }
            guard let message else {
                switch connection.receive(
                    into: &buffer, deadline: Deadline(millisecondsFromNow: 100), waitFirst: parser.isIdle)
                {
                case .success(let count): parser.append(buffer[0..<count])
                case .failure(.timedOut): continue
                case .failure: return
                }
                continue
            }
            requests += 1
            switch handler(message, requests) {
            case .close: return
            case .raw(let text):
                _ = connection.send(Array(text.utf8), deadline: Deadline(millisecondsFromNow: 5000))
                return
            case .hold:
                while !isStopped {
                    if case .failure(let failure) = connection.receive(
                        into: &buffer, deadline: Deadline(millisecondsFromNow: 100)), failure != .timedOut
                    {
                        return
                    }
                }
                return
            case .respond(let status, let body):
                let keepAlive = message.keepsConnectionOpen
                var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Length: \(body.utf8.count)\r\n"
                head += keepAlive ? "\r\n" : "Connection: close\r\n\r\n"
                guard
                    case .success = connection.send(
                        Array((head + body).utf8), deadline: Deadline(millisecondsFromNow: 5000)),
                    keepAlive
                else { return }
            }
        }
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 404: return "Not Found"
        case 500: return "Internal Server Error"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }
}

/// Why a receiver could not start.
public struct ReceiverError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { "cannot start the receiver: \(message)" }
}

/// Hands a non-Sendable value to the one thread that will own it from then on.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
