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

// `run` streams its standard output as the clock advances; everything else comes back in `output`.
let output = Simctl.main(
    Array(CommandLine.arguments.dropFirst()),
    standardOutput: { bytes in writeAll(bytes, to: STDOUT_FILENO) })
writeAll(Array(output.stdout.utf8), to: STDOUT_FILENO)
writeAll(Array(output.stderr.utf8), to: STDERR_FILENO)
exit(output.exitCode)
