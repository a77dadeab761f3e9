import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a fixture folder atomically: everything goes to a temporary sibling folder, which is renamed into place
/// only when complete. On failure nothing is left behind, and nothing that exists is replaced or deleted.
public enum FixtureWriter {
    public struct WriteError: Error, Hashable, Sendable, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "cannot write '\(path)': \(message)" }
    }

    /// Writes `files` into `directory`, which must not exist yet.
    public static func write(_ files: [(name: String, contents: String)], to directory: String) throws(WriteError) {
        try write(bytes: files.map { ($0.name, Array($0.contents.utf8)) }, to: directory)
    }

    /// Writes binary `files` (certificates in DER, say) into `directory`, which must not exist yet.
    public static func write(bytes files: [(name: String, bytes: [UInt8])], to directory: String) throws(WriteError) {
        let manager = FileManager.default
        let target = URL(fileURLWithPath: directory)
        if manager.fileExists(atPath: target.path)
            || (try? manager.destinationOfSymbolicLink(atPath: target.path)) != nil
        {
            throw WriteError(path: directory, message: "it already exists; choose a new folder or remove it first")
        }
        let parent = target.deletingLastPathComponent()
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: parent.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw WriteError(path: directory, message: "its parent folder '\(parent.path)' does not exist")
        }
        let staging = parent.appendingPathComponent(
            ".\(target.lastPathComponent).partial-\(ProcessInfo.processInfo.processIdentifier)")
        do {
            try? manager.removeItem(at: staging)
            try manager.createDirectory(at: staging, withIntermediateDirectories: false)
            for file in files {
                try Data(file.bytes).write(to: staging.appendingPathComponent(file.name))
            }
        } catch {
            try? manager.removeItem(at: staging)
            throw WriteError(path: directory, message: reason(error))
        }
        do throws(WriteError) {
            try moveIntoPlace(staging.path, target.path)
        } catch {
            try? manager.removeItem(at: staging)
            throw WriteError(path: directory, message: error.message)
        }
    }

    /// Renames the finished folder to its final name with `rename(2)`, which refuses to replace a folder that has
    /// anything in it: a folder that appeared under that name while the files were written (another run, say) is
    /// kept, and this write fails. (An empty folder that appeared meanwhile is replaced, which loses nothing.)
    /// FileManager's move is not used: it may delete what is in the way.
    static func moveIntoPlace(_ source: String, _ destination: String) throws(WriteError) {
        guard rename(source, destination) != 0 else { return }
        let code = errno
        if code == EEXIST || code == ENOTEMPTY || code == ENOTDIR || code == EISDIR {
            throw WriteError(
                path: destination,
                message:
                    "it appeared while the fixtures were being written; it was left as it is and nothing was written")
        }
        throw WriteError(path: destination, message: String(cString: strerror(code)))
    }

    /// A file system error as a sentence, without Foundation's error domains and codes.
    static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        return nsError.localizedDescription
    }
}
