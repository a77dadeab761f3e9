import Foundation
import SimctlCommand

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes all of `bytes` to the file descriptor straight from the array's storage (no copy into `Data`: `run`
/// streams gigabytes through here), retrying short writes and interrupted calls; stops at any other error.
func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

/// Writes all of `buffers`, in order, to the file descriptor with `writev(2)` (at most 1,024 buffers a call, Linux's
/// and Darwin's `IOV_MAX`), retrying short writes and interrupted calls; stops at any other error.
func writeAll(_ buffers: [UnsafeRawBufferPointer], to descriptor: Int32) {
    var vectors: [iovec] = []
    vectors.reserveCapacity(buffers.count)
    for buffer in buffers where !buffer.isEmpty {
        vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: buffer.baseAddress), iov_len: buffer.count))
    }
    var first = 0
    while first < vectors.count {
        let count = Int32(min(vectors.count - first, 1024))
        let written = vectors.withUnsafeBufferPointer { writev(descriptor, $0.baseAddress! + first, count) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
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

// On Linux the Swift runtime reads the command line from /proc/self/cmdline: where /proc is not mounted (a bare chroot,
// some minimal containers) it finds nothing, not even the program's name. Acting on that empty command line would print
// the help and exit 0 as if asked to; say what is wrong instead (docs/install.md).
if CommandLine.arguments.isEmpty {
    let message =
        "simctl: error: cannot read the command line: /proc/self/cmdline is not readable (is /proc mounted? in a "
        + "chroot: mount -t proc proc /proc)\n"
    writeAll(Array(message.utf8), to: STDERR_FILENO)
    _exit(71)  // EX_OSERR
}

// `run` streams its standard output as the clock advances; everything else comes back in `output`.
let output = Simctl.main(
    Array(CommandLine.arguments.dropFirst()),
    standardOutput: { bytes in writeAll(bytes, to: STDOUT_FILENO) },
    standardOutputVector: { buffers in writeAll(buffers, to: STDOUT_FILENO) })
writeAll(Array(output.stdout.utf8), to: STDOUT_FILENO)
writeAll(Array(output.stderr.utf8), to: STDERR_FILENO)
// `_exit`, not `exit`: everything simctl writes has gone out through write(2) above or was closed by its command
// (fixture folders, logs), so there is nothing buffered to flush, while `exit` would run the C libraries' exit
// handlers. Among them is OpenSSL's cleanup, which frees its locks and tables while FoundationNetworking's libcurl
// queue may still be running on another thread (a kept-alive https connection's socket or timer firing after
// `--deliver https://...` finished): about one run in 200 then crashed with heap corruption after a complete, correct
// delivery. No thread of simctl's own is left running at this point.
fflush(nil)
_exit(output.exitCode)
