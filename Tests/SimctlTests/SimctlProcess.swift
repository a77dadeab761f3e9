import Foundation

/// Runs the built `simctl` binary (from `.build/<configuration>/simctl`, found next to the test bundle) and captures
/// its output and exit status.
enum SimctlProcess {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var binary: URL {
        // The test bundle sits in the same build folder as the executable (.build/<triple>/debug/).
        let besideTests = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("simctl")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        for candidate in [".build/debug/simctl", ".build/release/simctl"] {
            let url = packageRoot.appendingPathComponent(candidate)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return besideTests
    }

    struct Result {
        var stdout: String
        var stderr: String
        var status: Int32
    }

    static func run(_ arguments: [String], in directory: URL? = nil, executable: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable ?? binary
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? packageRoot
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self),
            status: process.terminationStatus)
    }
}
