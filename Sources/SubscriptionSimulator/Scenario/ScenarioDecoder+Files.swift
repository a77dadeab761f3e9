import Foundation

/// Scenario files read by URL (a test's bundle resources, a fixture folder): errors name the file's path, and a
/// relative `storekit:` path is resolved against the file's folder, as `simctl run FILE` does.
extension ScenarioDecoder {
    /// Files larger than this are refused before they are read (as `simctl run` refuses them).
    public static let maximumFileBytes = 256 << 20

    /// A decoder for the scenario file at `url`: `file` is its path (in every error) and `baseDirectory` its folder
    /// (for `storekit:`). ``init(file:baseDirectory:)`` does the same with a path; its `file` is the name errors
    /// use and, unless `baseDirectory` is given, the path whose folder relative paths are resolved against.
    public init(url: URL) {
        self.init(file: url.path, baseDirectory: url.deletingLastPathComponent().path)
    }

    /// Reads and decodes the scenario file at `url` (UTF-8 text). A file that cannot be read, is larger than
    /// ``maximumFileBytes`` or is not UTF-8 is an error at `PATH:1:1` saying why.
    public static func decode(contentsOf url: URL, overrides: ScenarioOverrides = .init()) throws(ScenarioError)
        -> Scenario
    {
        let decoder = ScenarioDecoder(url: url)
        return try decoder.decode(try decoder.readText(of: url), overrides: overrides)
    }

    func readText(of url: URL) throws(ScenarioError) -> String {
        func failure(_ reason: String) -> ScenarioError {
            ScenarioError(file: file, location: SourceLocation(line: 1, column: 1), message: reason)
        }
        guard url.isFileURL else { throw failure("cannot read '\(url.absoluteString)': not a file URL") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw failure("cannot read the file: no such file or directory")
        }
        if isDirectory.boolValue { throw failure("cannot read the file: it is a directory, not a file") }
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw failure(
                "cannot read the file: "
                    + (FileManager.default.isReadableFile(atPath: url.path)
                        ? "it cannot be opened" : "permission denied"))
        }
        defer { try? handle.close() }
        let data: Data
        do { data = try handle.read(upToCount: Self.maximumFileBytes + 1) ?? Data() } catch {
            throw failure("cannot read the file: \(error.localizedDescription)")
        }
        if data.count > Self.maximumFileBytes {
            throw failure("the file is larger than \(Self.maximumFileBytes >> 20) MB; no scenario is")
        }
        guard let text = String(validating: Array(data), as: UTF8.self) else {
            throw failure("the file is not UTF-8 text; save it as UTF-8")
        }
        return text
    }
}
