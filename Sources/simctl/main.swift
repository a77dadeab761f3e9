import Foundation
import SimctlCommand

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// On Linux the Swift runtime reads the command line from /proc/self/cmdline: where /proc is not mounted (a bare chroot,
// some minimal containers) it finds nothing, not even the program's name. Acting on that empty command line would print
// the help and exit 0 as if asked to; say what is wrong instead (docs/install.md).
if CommandLine.arguments.isEmpty {
    let message =
        "simctl: error: cannot read the command line: /proc/self/cmdline is not readable (is /proc mounted? in a "
        + "chroot: mount -t proc proc /proc)\n"
    OutputWrites.writeAll(Array(message.utf8), to: STDERR_FILENO)
    _exit(71)  // EX_OSERR
}

// `run` streams its standard output as the clock advances; everything else comes back in `output`.
let output = Simctl.main(
    Array(CommandLine.arguments.dropFirst()),
    standardOutput: { bytes in OutputWrites.writeAll(bytes, to: STDOUT_FILENO) },
    standardOutputVector: { buffers in OutputWrites.writeAll(buffers, to: STDOUT_FILENO) })
// A failed write of standard output ends the process with exit code 74 and a message (OutputWrites.fail); a closed
// pipe quietly, by SIGPIPE (docs/reliability.md).
// The command's own standard error goes out first, then the failure's message.
let failed = Array(output.stdout.utf8).withUnsafeBytes { OutputWrites.write($0, to: STDOUT_FILENO) }
OutputWrites.writeAll(Array(output.stderr.utf8), to: STDERR_FILENO)
if failed != 0 { OutputWrites.fail(destination: "standard output", code: failed) }
// `_exit`, not `exit`: everything simctl writes has gone out through write(2) above or was closed by its command
// (fixture folders, logs), so there is nothing buffered to flush, while `exit` would run the C libraries' exit
// handlers. Among them is OpenSSL's cleanup, which frees its locks and tables while FoundationNetworking's libcurl
// queue may still be running on another thread (a kept-alive https connection's socket or timer firing after
// `--deliver https://...` finished): about one run in 200 then crashed with heap corruption after a complete, correct
// delivery. No thread of simctl's own is left running at this point.
fflush(nil)
_exit(output.exitCode)
