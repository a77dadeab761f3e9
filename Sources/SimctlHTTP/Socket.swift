#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A non-blocking TCP socket with deadlines (poll), the little of the C socket API that HTTP needs.
/// Not thread-safe: one owner at a time.
final class TCPSocket {
    private(set) var descriptor: Int32

    init(descriptor: Int32) {
        self.descriptor = descriptor
        Self.configure(descriptor)
    }

    deinit { close() }

    func close() {
        if descriptor >= 0 {
            _ = systemClose(descriptor)
            descriptor = -1
        }
    }

    /// Shuts both directions down (wakes a thread blocked in poll on it); the descriptor stays open until ``close()``.
    func shutdownBoth() {
        if descriptor >= 0 { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    static func configure(_ descriptor: Int32) {
        let flags = fcntl(descriptor, F_GETFL, 0)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    enum Failure: Error, Equatable {
        case timedOut
        /// The peer closed (read returned 0).
        case closed
        case error(String)
    }

    /// Connects to `host`:`port` (every address the name resolves to, in order) before `deadline`.
    static func connect(host: String, port: UInt16, deadline: Deadline) -> Result<TCPSocket, Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
            hints.ai_socktype = SOCK_STREAM
        #else
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            return .failure(.error("cannot resolve host '\(host)': \(String(cString: gai_strerror(status)))"))
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address for host '\(host)'"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            if fd < 0 {
                lastError = errorText("socket")
                continue
            }
            let sock = TCPSocket(descriptor: fd)
            if systemConnect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return .success(sock) }
            guard errno == EINPROGRESS else {
                lastError = errorText("connect")
                continue
            }
            switch sock.wait(for: Int16(POLLOUT), deadline: deadline) {
            case .failure(let failure): return .failure(failure)
            case .success:
                var code: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
                if code == 0 { return .success(sock) }
                lastError = "connect: \(String(cString: strerror(code)))"
            }
        }
        return .failure(.error(lastError))
    }

    /// Waits until the socket is ready for `events` or the deadline passes.
    func wait(for events: Int16, deadline: Deadline) -> Result<Void, Failure> {
        while true {
            let remaining = deadline.remainingMilliseconds()
            if remaining <= 0 { return .failure(.timedOut) }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(remaining, Int64(Int32.max))))
            if ready > 0 { return .success(()) }
            if ready == 0 { continue }  // the loop checks the deadline
            if errno == EINTR { continue }
            return .failure(.error(Self.errorText("poll")))
        }
    }

    /// Whether a kept-alive connection can no longer carry a request, seen without waiting and without sending: the
    /// peer closed or reset it (a read would end or fail), or it holds bytes nobody asked for. The HTTP client opens
    /// a fresh connection instead, before anything is sent (``HTTPClient``: no request is ever sent twice).
    func isUnusable() -> Bool {
        guard descriptor >= 0 else { return true }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, 0)
        if ready == 0 { return false }
        if ready < 0 { return errno != EINTR }
        var byte: UInt8 = 0
        let peeked = recv(descriptor, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        if peeked < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return false }
        return true
    }

    /// Sends every byte before the deadline.
    func send(_ bytes: [UInt8], deadline: Deadline) -> Result<Void, Failure> {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                systemSend(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if sent > 0 {
                offset += sent
                continue
            }
            if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                if case .failure(let failure) = wait(for: Int16(POLLOUT), deadline: deadline) {
                    return .failure(failure)
                }
                continue
            }
            return .failure(.error(Self.errorText("send")))
        }
        return .success(())
    }

    /// Reads what has arrived (at most `buffer.count` bytes), waiting until the deadline for the first byte.
    /// `waitFirst`: poll before the first read, when nothing is likely to have arrived yet (saves a read that would
    /// only say "not yet").
    func receive(into buffer: inout [UInt8], deadline: Deadline, waitFirst: Bool = false) -> Result<Int, Failure> {
        if waitFirst, case .failure(let failure) = wait(for: Int16(POLLIN), deadline: deadline) {
            return .failure(failure)
        }
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in recv(descriptor, raw.baseAddress!, raw.count, 0) }
            if count > 0 { return .success(count) }
            if count == 0 { return .failure(.closed) }
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                if case .failure(let failure) = wait(for: Int16(POLLIN), deadline: deadline) {
                    return .failure(failure)
                }
                continue
            }
            if errno == ECONNRESET { return .failure(.closed) }
            return .failure(.error(Self.errorText("recv")))
        }
    }

    static func errorText(_ call: String) -> String { "\(call): \(String(cString: strerror(errno)))" }
}

/// A point in wall-clock (monotonic) time by which an operation must end.
struct Deadline {
    let end: ContinuousClock.Instant

    init(millisecondsFromNow: Int64) { end = ContinuousClock.now.advanced(by: .milliseconds(millisecondsFromNow)) }

    func remainingMilliseconds() -> Int64 {
        let left = ContinuousClock.now.duration(to: end).components
        let milliseconds = left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000
        // Round up so a poll does not return a millisecond early and loop.
        return left.attoseconds % 1_000_000_000_000_000 > 0 ? milliseconds + 1 : milliseconds
    }
}

func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
        return Darwin.close(fd)
    #elseif canImport(Musl)
        return Musl.close(fd)
    #else
        return Glibc.close(fd)
    #endif
}

private func systemConnect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
    #if canImport(Darwin)
        return Darwin.connect(fd, address, length)
    #elseif canImport(Musl)
        return Musl.connect(fd, address, length)
    #else
        return Glibc.connect(fd, address, length)
    #endif
}

private func systemSend(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
        return Darwin.send(fd, bytes, count, 0)
    #else
        return send(fd, bytes, count, Int32(MSG_NOSIGNAL))
    #endif
}
