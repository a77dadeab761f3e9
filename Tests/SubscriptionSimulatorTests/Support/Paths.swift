import Foundation

/// Paths of the package, found from this source file (tests run from any working directory).
enum PackagePaths {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let scenarios = root.appendingPathComponent("Scenarios")
    static let docs = root.appendingPathComponent("docs")
    static let golden = root.appendingPathComponent("Tests/SubscriptionSimulatorTests/Golden")

    /// Set RECORD=1 to rewrite golden files instead of comparing; review the diff before committing.
    static var recording: Bool { ProcessInfo.processInfo.environment["RECORD"] == "1" }

    static func read(_ url: URL) throws -> String {
        try String(contentsOf: url, encoding: .utf8)
    }

    static func yamlFiles(in folder: URL) -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension == "yaml" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}

/// Compares `actual` with the golden file `name` (or writes it when recording). Returns a failure message or nil.
func checkGolden(_ actual: String, _ name: String) -> String? {
    let url = PackagePaths.golden.appendingPathComponent(name)
    if PackagePaths.recording {
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? Data(actual.utf8).write(to: url)
        return nil
    }
    guard let expected = try? PackagePaths.read(url) else {
        return "golden file \(name) is missing; run the tests with RECORD=1 to create it, then review it"
    }
    if expected == actual { return nil }
    let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
    let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
    let line = zip(a, e).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, e.count)
    let found = line < a.count ? String(a[line]) : "<end>"
    let wanted = line < e.count ? String(e[line]) : "<end>"
    return "\(name) differs at line \(line + 1):\n  expected: \(wanted.prefix(300))\n  actual:   \(found.prefix(300))\n"
        + "(RECORD=1 rewrites golden files; review the diff)"
}
