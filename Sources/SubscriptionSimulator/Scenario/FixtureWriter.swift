import Foundation

/// Writes a fixture folder atomically: everything goes to a temporary sibling folder, which is renamed into place
/// only when complete. On failure nothing is left behind.
public enum FixtureWriter {
    public struct WriteError: Error, Hashable, Sendable, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "cannot write '\(path)': \(message)" }
    }

    /// Writes `files` into `directory`, which must not exist yet (or must be an empty folder).
    public static func write(_ files: [(name: String, contents: String)], to directory: String) throws(WriteError) {
        let manager = FileManager.default
        let target = URL(fileURLWithPath: directory)
        var isFolder: ObjCBool = false
        if manager.fileExists(atPath: target.path, isDirectory: &isFolder) {
            let contents = (try? manager.contentsOfDirectory(atPath: target.path)) ?? ["?"]
            guard isFolder.boolValue, contents.isEmpty else {
                throw WriteError(path: directory, message: "it already exists; choose a new folder or remove it first")
            }
        }
        let parent = target.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(
            ".\(target.lastPathComponent).partial-\(ProcessInfo.processInfo.processIdentifier)")
        do {
            try? manager.removeItem(at: staging)
            try manager.createDirectory(at: staging, withIntermediateDirectories: false)
            for file in files {
                try Data(file.contents.utf8).write(to: staging.appendingPathComponent(file.name))
            }
            if manager.fileExists(atPath: target.path) { try manager.removeItem(at: target) }
            try manager.moveItem(at: staging, to: target)
        } catch {
            try? manager.removeItem(at: staging)
            throw WriteError(path: directory, message: "\(error.localizedDescription)")
        }
    }
}
