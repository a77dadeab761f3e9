import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Checked writes of what simctl prints (docs/reliability.md, "Write errors"): a write that fails ends the process
/// with a message that names the destination and the system's reason, and exit code 74 (``ExitCode/ioError``). A
/// closed pipe (`simctl run ... | head`) ends it as a closed pipe always has, quietly, by SIGPIPE.
package enum OutputWrites {
    /// What to undo before the process ends on a failed write (a fixture folder's hidden staging folder); set by the
    /// command that made it, cleared when it is done.
    nonisolated(unsafe) private static var cleanup: (() -> Void)?
    private static let lock = NSLock()

    /// Registers `body` to run if a write of standard output fails before ``clearCleanup()``.
    package static func onFailure(_ body: @escaping () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        cleanup = body
    }

    package static func clearCleanup() {
        lock.lock()
        defer { lock.unlock() }
        cleanup = nil
    }

    /// The message for a write to `destination` that failed with `code` (an errno value).
    package static func message(destination: String, code: Int32) -> String {
        "error: cannot write \(destination): \(String(cString: strerror(code))) (errno \(code)); the output is "
            + "incomplete\n"
    }

    /// Ends the process after a failed write to `destination`: quietly by SIGPIPE for a closed pipe, otherwise with
    /// ``message(destination:code:)`` on standard error and exit code 74, after the registered cleanup.
    package static func fail(destination: String, code: Int32) -> Never {
        if code == EPIPE {
            // SIGPIPE is ignored in this process (the write returned EPIPE instead of ending it): end it the way the
            // default action would, so a shell sees a process killed by SIGPIPE, as with any other program.
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
        }
        lock.lock()
        let undo = cleanup
        cleanup = nil
        lock.unlock()
        undo?()
        let text = Array(message(destination: destination, code: code).utf8)
        _ = text.withUnsafeBytes { Foundation.write(STDERR_FILENO, $0.baseAddress, $0.count) }
        _exit(ExitCode.ioError)
    }

    /// The name of a descriptor in messages.
    static func name(of descriptor: Int32) -> String {
        switch descriptor {
        case STDOUT_FILENO: return "standard output"
        case STDERR_FILENO: return "standard error"
        default: return "descriptor \(descriptor)"
        }
    }

    /// Writes all of `bytes` to `descriptor`, retrying short writes and interrupted calls. Returns 0, or the errno
    /// of the write that failed (a write that writes nothing counts as failed: EIO).
    package static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32 {
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return written < 0 ? errno : EIO
            }
        }
        return 0
    }

    /// Writes all of `bytes` to the file descriptor straight from the array's storage (no copy into `Data`: `run`
    /// streams gigabytes through here); a failure ends the process (``fail(destination:code:)``), but one of
    /// standard error, which has nowhere to be reported.
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        let code = bytes.withUnsafeBytes { write($0, to: descriptor) }
        if code != 0 && descriptor != STDERR_FILENO { fail(destination: name(of: descriptor), code: code) }
    }

    /// Writes all of `buffers`, in order, to the file descriptor with `writev(2)` (at most 1,024 buffers a call,
    /// Linux's and Darwin's `IOV_MAX`), retrying short writes and interrupted calls; a failure ends the process
    /// (``fail(destination:code:)``).
    package static func writeAll(_ buffers: [UnsafeRawBufferPointer], to descriptor: Int32) {
        var vectors: [iovec] = []
        vectors.reserveCapacity(buffers.count)
        for buffer in buffers where !buffer.isEmpty {
            vectors.append(
                iovec(iov_base: UnsafeMutableRawPointer(mutating: buffer.baseAddress), iov_len: buffer.count))
        }
        var first = 0
        while first < vectors.count {
            let count = Int32(min(vectors.count - first, 1024))
            let written = vectors.withUnsafeBufferPointer { writev(descriptor, $0.baseAddress! + first, count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { fail(destination: name(of: descriptor), code: written < 0 ? errno : EIO) }
            // Past the buffers written whole, then into the one written in part.
            var left = written
            while left > 0 {
                if left >= vectors[first].iov_len {
                    left -= vectors[first].iov_len
                    first += 1
                } else {
                    vectors[first].iov_base = vectors[first].iov_base.map { $0 + left }
                    vectors[first].iov_len -= left
                    left = 0
                }
            }
        }
    }
}

extension ExitCode {
    /// A write of simctl's output failed (EX_IOERR): standard output, the delivery log, serve's log.
    package static let ioError: Int32 = 74
}
