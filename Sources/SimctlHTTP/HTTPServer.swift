import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP/1.1 server over plain sockets: one accept thread, one thread per open connection (at most
/// ``HTTPServerConfiguration/maximumConnections``), a handler called with each complete request.
///
/// **What it speaks** (RFC 9110, RFC 9112):
/// - Keep-alive: HTTP/1.1 connections stay open unless the request says `Connection: close`; HTTP/1.0 ones close
///   unless it says `Connection: keep-alive`. Pipelined requests are answered in order, one at a time.
/// - Request bodies framed by `Content-Length` or `Transfer-Encoding: chunked` (decoded, trailers dropped, bounded
///   by ``HTTPServerLimits/maximumBodyBytes``); any other transfer coding is **501 Not Implemented**.
/// - `Expect: 100-continue`: `HTTP/1.1 100 Continue` is sent once the head is accepted and before the body is read;
///   a body over the limit is refused with 413 before it is sent. Any other expectation is **417 Expectation
///   Failed**.
/// - HEAD: answered with the headers (and `Content-Length`) of the handler's response, without its body.
/// - Responses always carry `Content-Length` (except 204 and 304, which have no body), `Connection: close` when the
///   connection closes after them, and no `Date` (answers are deterministic). The handler's own `Content-Length`,
///   `Transfer-Encoding` and `Connection` fields are replaced; `Connection: close` from the handler closes the
///   connection after the answer.
/// - Any method token reaches the handler (an application answers 405 to what it does not serve).
///
/// **What it refuses** without calling the handler, answering with `Connection: close`, then closing (after reading
/// and discarding for at most ``HTTPServerConfiguration/lingerSeconds`` what the client still sends, so it reads the
/// answer instead of a reset):
/// - 400: a malformed request line or header field, a field value with control bytes, an HTTP/1.1 request without
///   exactly one `Host`, an invalid `Content-Length` or chunk, a request-target that is not visible ASCII, has a
///   fragment or a bad percent escape (see ``HTTPRequest/decodeTarget(_:)``).
/// - 408 after ``HTTPServerConfiguration/readTimeout`` when a started request has not arrived completely.
/// - 413, 414, 431: over a limit of ``HTTPServerLimits``.
/// - 503 (before reading anything) when ``HTTPServerConfiguration/maximumConnections`` connections are open.
/// - 505 for an `HTTP/x.y` version other than 1.0 and 1.1.
/// A response the handler builds with a status outside 200...599 or a header that is not a token name with a value
/// free of CR, LF and NUL is replaced by 500, so a handler cannot split responses.
///
/// **Log**: one ``HTTPExchangeLogEntry`` per answered request and per connection closed without an answer while a
/// request was arriving (or before any request), with the reason of every rejection.
///
/// **Threads and memory**: the handler runs on the connection's thread and may be called concurrently for different
/// connections; it must be thread-safe, and must not call ``stop(graceSeconds:)`` (stop waits for the handler's
/// thread). A slow client holds only its own thread. Each connection buffers at most one request head
/// (``HTTPServerLimits/maximumHeadBytes``) and body (``HTTPServerLimits/maximumBodyBytes``) plus a 16 KiB read
/// buffer, so memory is bounded by ``HTTPServerConfiguration/maximumConnections`` times that.
///
/// ```swift
/// ShutdownSignals.block()  // before any thread starts
/// let server = try HTTPServer(log: { print($0.line) }) { request in
///     request.path == "/hello" ? .text(status: 200, "hello") : .json(status: 404, "{}")
/// }
/// server.start()
/// print(server.url)
/// _ = ShutdownSignals.wait()
/// server.stop()
/// ```
public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    public let configuration: HTTPServerConfiguration
    /// The bound port (the system's choice when the configuration says 0).
    public let port: UInt16
    /// `http://127.0.0.1:PORT` (`http://[::1]:PORT` for an IPv6 address).
    public let url: String

    let handler: Handler
    let logFunction: (@Sendable (HTTPExchangeLogEntry) -> Void)?
    let logLock = NSLock()
    let listener: Int32
    /// A pipe whose read end the accept thread polls; a byte written wakes it.
    let wakeReader: Int32
    let wakeWriter: Int32

    let lock = NSLock()
    var phase = Phase.created
    var connections: [Int: Connection] = [:]
    var connectionCount = 0
    /// Sockets that got an error answer and are read and discarded until the client closes or the deadline passes.
    var lingering: [(socket: TCPSocket, deadline: ContinuousClock.Instant)] = []
    let threadsDone = NSCondition()
    var threadCount = 0

    enum Phase { case created, running, stopping, stopped }

    /// One open connection, as the server's lock sees it.
    final class Connection: @unchecked Sendable {
        let number: Int
        let socket: TCPSocket
        let remoteAddress: String
        /// Waiting for the first byte of a request (closed at once by ``stop(graceSeconds:)``).
        var idle = true

        init(number: Int, socket: TCPSocket, remoteAddress: String) {
            self.number = number
            self.socket = socket
            self.remoteAddress = remoteAddress
        }
    }

    /// Binds and listens on `configuration.host`:`configuration.port`; requests are accepted after ``start()``.
    /// Throws ``HTTPServerError`` when the host does not resolve or the address cannot be bound (in use, not an
    /// address of this machine).
    public init(
        configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
        log: (@Sendable (HTTPExchangeLogEntry) -> Void)? = nil, handler: @escaping Handler
    ) throws {
        self.configuration = configuration
        self.handler = handler
        self.logFunction = log
        let (fd, port, ipv6) = try Self.listen(host: configuration.host, port: configuration.port)
        self.listener = fd
        self.port = port
        self.url = ipv6 ? "http://[\(configuration.host)]:\(port)" : "http://\(configuration.host):\(port)"
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = systemClose(fd)
            throw HTTPServerError(address: "\(configuration.host):\(port)", reason: "pipe: \(reason)")
        }
        wakeReader = ends[0]
        wakeWriter = ends[1]
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL, 0) | O_NONBLOCK) }
    }

    deinit {
        if phase == .created { _ = systemClose(listener) }
        _ = systemClose(wakeReader)
        _ = systemClose(wakeWriter)
    }

    /// Starts accepting connections on a background thread and returns at once. Calling it again does nothing.
    public func start() {
        lock.lock()
        guard phase == .created else {
            lock.unlock()
            return
        }
        phase = .running
        lock.unlock()
        startThread { [self] in acceptLoop() }
    }

    /// Stops the server and returns once it has stopped:
    /// 1. stops accepting (new connections are refused) and closes every connection waiting for a request;
    /// 2. lets requests being received or handled finish for up to `graceSeconds` (their answers say
    ///    `Connection: close`);
    /// 3. then shuts the remaining connections down and waits for their threads (a handler already running is
    ///    waited for: it cannot be interrupted).
    /// Idempotent; concurrent calls all return once stopped.
    public func stop(graceSeconds: Double = 5) {
        lock.lock()
        switch phase {
        case .created:
            phase = .stopped
            lock.unlock()
            _ = systemClose(listener)
            return
        case .stopping, .stopped:
            lock.unlock()
            waitForThreads(until: nil)
            return
        case .running:
            phase = .stopping
            for connection in connections.values where connection.idle { connection.socket.shutdownBoth() }
        }
        lock.unlock()
        wake()
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(max(0, graceSeconds) * 1000)))
        if !waitForThreads(until: deadline) {
            lock.lock()
            for connection in connections.values { connection.socket.shutdownBoth() }
            lock.unlock()
            waitForThreads(until: nil)
        }
        lock.lock()
        phase = .stopped
        lock.unlock()
    }

    /// Open connections (for tests and status pages).
    public var openConnections: Int {
        lock.lock()
        defer { lock.unlock() }
        return connections.count
    }

    // MARK: - Threads

    var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return phase != .running
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)
    }

    func startThread(_ body: @escaping @Sendable () -> Void) {
        threadsDone.lock()
        threadCount += 1
        threadsDone.unlock()
        let thread = Thread { [self] in
            body()
            threadsDone.lock()
            threadCount -= 1
            threadsDone.broadcast()
            threadsDone.unlock()
        }
        thread.stackSize = max(256 * 1024, configuration.threadStackBytes)
        thread.start()
    }

    /// True when every thread ended before `deadline` (nil: no deadline).
    @discardableResult
    func waitForThreads(until deadline: ContinuousClock.Instant?) -> Bool {
        threadsDone.lock()
        defer { threadsDone.unlock() }
        while threadCount > 0 {
            guard let deadline else {
                threadsDone.wait()
                continue
            }
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero { return false }
            let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
            _ = threadsDone.wait(until: Date(timeIntervalSinceNow: seconds))
        }
        return true
    }

    func emit(_ entry: HTTPExchangeLogEntry) {
        guard let logFunction else { return }
        logLock.lock()
        defer { logLock.unlock() }
        logFunction(entry)
    }

    // MARK: - Accepting

    func acceptLoop() {
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        defer {
            _ = systemClose(listener)
            lock.lock()
            let rest = lingering
            lingering = []
            lock.unlock()
            for entry in rest { entry.socket.close() }
        }
        while true {
            lock.lock()
            if phase != .running {
                lock.unlock()
                return
            }
            let now = ContinuousClock.now
            var kept: [(socket: TCPSocket, deadline: ContinuousClock.Instant)] = []
            for entry in lingering {
                if entry.deadline <= now { entry.socket.close() } else { kept.append(entry) }
            }
            lingering = kept
            let watched = kept
            lock.unlock()
            var entries = [
                pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0),
            ]
            entries += watched.map { pollfd(fd: $0.socket.descriptor, events: Int16(POLLIN), revents: 0) }
            var timeout: Int64 = 1000
            for entry in watched {
                let left = now.duration(to: entry.deadline).components
                timeout = min(timeout, left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000 + 1)
            }
            let ready = poll(&entries, nfds_t(entries.count), Int32(max(1, timeout)))
            if ready < 0 {
                if errno == EINTR { continue }
                usleep(10_000)
                continue
            }
            if entries[1].revents != 0 { while read(wakeReader, &scratch, scratch.count) > 0 {} }
            var finished: Set<Int32> = []
            for (index, entry) in watched.enumerated() where entries[index + 2].revents != 0 {
                // Discard what arrived; the client's close (0), a reset or 1 MiB discarded ends the linger.
                var discarded = 0
                while discarded < 1 << 20 {
                    let count = scratch.withUnsafeMutableBytes {
                        recv(entry.socket.descriptor, $0.baseAddress!, $0.count, 0)
                    }
                    if count > 0 {
                        discarded += count
                        continue
                    }
                    if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
                    finished.insert(entry.socket.descriptor)
                    break
                }
                if discarded >= 1 << 20 { finished.insert(entry.socket.descriptor) }
            }
            if !finished.isEmpty {
                lock.lock()
                lingering.removeAll { entry in
                    guard finished.contains(entry.socket.descriptor) else { return false }
                    entry.socket.close()
                    return true
                }
                lock.unlock()
            }
            if entries[0].revents != 0 { acceptPending() }
        }
    }

    /// Accepts what the listener has queued (at most 64 at a time, so lingering sockets are served too).
    func acceptPending() {
        for _ in 0..<64 {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &length) }
            }
            if fd < 0 {
                if errno == EMFILE || errno == ENFILE { usleep(10_000) }  // out of descriptors: let some close
                return
            }
            let socket = TCPSocket(descriptor: fd)
            let remote = Self.describe(&storage)
            lock.lock()
            connectionCount += 1
            let number = connectionCount
            guard phase == .running, connections.count < configuration.maximumConnections else {
                let running = phase == .running
                lock.unlock()
                if running {
                    let reason = "more than \(configuration.maximumConnections) connections open"
                    let body = "503 Service Unavailable: \(reason)\n"
                    let head =
                        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
                        + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\nRetry-After: 1\r\n\r\n"
                    _ = socket.send(Array((head + body).utf8), deadline: Deadline(millisecondsFromNow: 100))
                    emit(
                        HTTPExchangeLogEntry(
                            connection: number, remoteAddress: remote, status: 503,
                            responseBodyBytes: body.utf8.count, reason: reason))
                    linger(socket)
                }
                return
            }
            let connection = Connection(number: number, socket: socket, remoteAddress: remote)
            connections[number] = connection
            lock.unlock()
            startThread { [self] in serve(connection) }
        }
    }

    /// Half-closes `socket` and hands it to the accept thread, which discards what the client still sends until it
    /// closes or ``HTTPServerConfiguration/lingerSeconds`` pass.
    func linger(_ socket: TCPSocket) {
        _ = shutdown(socket.descriptor, Int32(SHUT_WR))
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(configuration.lingerSeconds * 1000)))
        lock.lock()
        if phase == .running && lingering.count < 1024 && configuration.lingerSeconds > 0 {
            lingering.append((socket, deadline))
            lock.unlock()
            wake()
        } else {
            lock.unlock()
            socket.close()
        }
    }

    // MARK: - One connection

    func serve(_ connection: Connection) {
        var session = ConnectionSession(server: self, connection: connection)
        let keep = session.run()
        lock.lock()
        connections[connection.number] = nil
        lock.unlock()
        if keep == .linger { linger(connection.socket) } else { connection.socket.close() }
    }

    /// Marks the connection idle (waiting for a request) or busy; false when the server is stopping and the
    /// connection is idle (it closes).
    func setIdle(_ connection: Connection, _ idle: Bool) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        connection.idle = idle
        return !(idle && phase != .running)
    }

    // MARK: - Sockets

    /// Resolves `host` and binds a listening, non-blocking socket; returns it, the bound port and whether it is IPv6.
    static func listen(host: String, port: UInt16) throws -> (Int32, UInt16, Bool) {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_flags = AI_PASSIVE
        #if canImport(Darwin)
            hints.ai_socktype = SOCK_STREAM
        #else
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw HTTPServerError(
                address: address,
                reason: "cannot resolve host '\(host)': \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        let info = first.pointee
        let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
        guard fd >= 0 else { throw HTTPServerError(address: address, reason: TCPSocket.errorText("socket")) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, info.ai_addr, info.ai_addrlen) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = systemClose(fd)
            throw HTTPServerError(address: address, reason: reason)
        }
        guard systemListen(fd, 1024) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = systemClose(fd)
            throw HTTPServerError(address: address, reason: reason)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let bound = Self.port(of: &storage)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
        return (fd, bound, info.ai_family == AF_INET6)
    }

    static func port(of storage: inout sockaddr_storage) -> UInt16 {
        withUnsafePointer(to: &storage) { pointer in
            if Int32(pointer.pointee.ss_family) == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin6_port)
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt16(bigEndian: $0.pointee.sin_port)
            }
        }
    }

    /// `127.0.0.1:53122` or `[::1]:53122`.
    static func describe(_ storage: inout sockaddr_storage) -> String {
        let port = Self.port(of: &storage)
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        return withUnsafePointer(to: &storage) { pointer in
            if Int32(pointer.pointee.ss_family) == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var raw = address.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                    return "[\(cText(text))]:\(port)"
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                var raw = address.pointee.sin_addr
                _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                return "\(cText(text)):\(port)"
            }
        }
    }
}

/// A NUL-terminated C string's text.
private func cText(_ characters: [CChar]) -> String {
    String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 {
    #if canImport(Darwin)
        return Darwin.listen(fd, backlog)
    #elseif canImport(Musl)
        return Musl.listen(fd, backlog)
    #else
        return Glibc.listen(fd, backlog)
    #endif
}
