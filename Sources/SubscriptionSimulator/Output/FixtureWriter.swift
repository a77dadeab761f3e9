import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `rename(2)`, under a name that `FixtureWriter.Staging.rename` does not hide.
private func renameFile(_ from: String, _ to: String) -> Int32 { rename(from, to) }

/// Writes a fixture folder atomically: everything goes to a hidden temporary sibling folder (`.NAME.partial-PID`),
/// which takes the final name in one rename only when complete. On failure nothing is left behind, and nothing that
/// exists is replaced or deleted, unless the caller asked to replace the folder (`--force`), and then only once the
/// new one is complete: at every instant the folder's name holds either the old folder or the new one.
public enum FixtureWriter {
    public struct WriteError: Error, Hashable, Sendable, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "cannot write '\(path)': \(message)" }
    }

    /// Writes `files` into `directory`. Unless `replacingExisting`, `directory` must not exist yet, not even empty.
    /// With `replacingExisting`, an existing folder at `directory` is replaced by the complete new one (a file or a
    /// symbolic link there is never replaced). Missing parent folders are created. Hidden `.NAME.partial-PID`
    /// folders that earlier runs killed by SIGKILL left in the parent are removed first (``removeAbandonedFolders(in:)``).
    public static func write(
        _ files: [(name: String, contents: String)], to directory: String, replacingExisting: Bool = false
    ) throws(WriteError) {
        try write(
            bytes: files.map { ($0.name, Array($0.contents.utf8)) }, to: directory, replacingExisting: replacingExisting
        )
    }

    /// Writes binary `files` (certificates in DER, say) into `directory`, in the same way as ``write(_:to:replacingExisting:)``.
    public static func write(
        bytes files: [(name: String, bytes: [UInt8])], to directory: String, replacingExisting: Bool = false
    ) throws(WriteError) {
        let staging = try Staging(directory: directory, replacingExisting: replacingExisting)
        do throws(WriteError) {
            for file in files { try staging.write(file.name, file.bytes) }
        } catch {
            staging.abandon()
            throw error
        }
        try staging.commit()
    }

    /// A fixture folder being written: its files go into the hidden `.NAME.partial-PID` sibling, which
    /// ``commit()`` gives the final name (replacing an existing folder only when asked to) and ``abandon()``
    /// removes. A streamed run (`simctl run --out`) writes each file as its notification is sent.
    public final class Staging {
        public let directory: String
        let target: URL
        let parent: URL
        let staging: URL
        let exists: Bool
        var finished = false

        /// Checks the target as ``FixtureWriter/write(_:to:replacingExisting:)`` does and creates the staging
        /// folder.
        public init(directory: String, replacingExisting: Bool) throws(WriteError) {
            self.directory = directory
            let manager = FileManager.default
            target = URL(fileURLWithPath: directory)
            var isFolder: ObjCBool = false
            let isLink = (try? manager.destinationOfSymbolicLink(atPath: target.path)) != nil
            exists = manager.fileExists(atPath: target.path, isDirectory: &isFolder) || isLink
            if exists && !replacingExisting {
                throw WriteError(
                    path: directory,
                    message: "it already exists; choose a new folder, remove it first, or pass --force to replace it")
            }
            if exists && (isLink || !isFolder.boolValue) {
                throw WriteError(path: directory, message: "it is not a folder; --force replaces only a folder")
            }
            parent = target.deletingLastPathComponent()
            var parentIsFolder: ObjCBool = false
            if !manager.fileExists(atPath: parent.path, isDirectory: &parentIsFolder) {
                do { try manager.createDirectory(at: parent, withIntermediateDirectories: true) } catch {
                    throw WriteError(path: directory, message: "cannot create its parent folder: \(reason(error))")
                }
            } else if !parentIsFolder.boolValue {
                throw WriteError(path: directory, message: "'\(parent.path)' is not a folder")
            }
            removeAbandonedFolders(in: parent.path)
            let pid = ProcessInfo.processInfo.processIdentifier
            staging = parent.appendingPathComponent(".\(target.lastPathComponent).partial-\(pid)")
            do {
                try? manager.removeItem(at: staging)
                try manager.createDirectory(at: staging, withIntermediateDirectories: false)
            } catch {
                throw WriteError(path: directory, message: reason(error))
            }
        }

        deinit { if !finished { try? FileManager.default.removeItem(at: staging) } }

        /// Writes one file into the staging folder.
        public func write(_ name: String, _ bytes: [UInt8]) throws(WriteError) {
            do { try Data(bytes).write(to: staging.appendingPathComponent(name)) } catch {
                throw WriteError(path: directory, message: reason(error))
            }
        }

        /// Renames a file already written.
        public func rename(_ name: String, _ newName: String) throws(WriteError) {
            let from = staging.appendingPathComponent(name).path
            let to = staging.appendingPathComponent(newName).path
            guard renameFile(from, to) == 0 else {
                throw WriteError(path: directory, message: String(cString: strerror(errno)))
            }
        }

        /// Gives the complete folder its final name; on failure the staging folder is removed.
        public func commit() throws(WriteError) {
            finished = true
            let pid = ProcessInfo.processInfo.processIdentifier
            do throws(WriteError) {
                if exists {
                    try replaceInPlace(
                        staging.path, target.path,
                        aside: parent.appendingPathComponent(".\(target.lastPathComponent).old-\(pid)").path)
                } else {
                    try moveIntoPlace(staging.path, target.path)
                }
            } catch {
                try? FileManager.default.removeItem(at: staging)
                throw WriteError(path: directory, message: error.message)
            }
        }

        /// Removes the staging folder: nothing is written.
        public func abandon() {
            finished = true
            try? FileManager.default.removeItem(at: staging)
        }
    }

    /// Gives the finished folder its final name, refusing to replace anything there, even an empty folder that
    /// appeared under that name while the files were written (another run, say): that one is kept and this write
    /// fails. Linux: `renameat2(2)` with `RENAME_NOREPLACE`; macOS: `renamex_np(2)` with `RENAME_EXCL`. Where the file
    /// system does not support those flags, the name is first taken with `mkdir(2)` (which fails on anything that
    /// exists) and the folder renamed over that empty folder of ours; something written into it meanwhile makes
    /// the rename fail instead of being replaced. FileManager's move is not used: it may delete what is in the way.
    static func moveIntoPlace(_ source: String, _ destination: String) throws(WriteError) {
        switch renameFlagged(source, destination, exchange: false) {
        case .done: return
        case .failed(let code): throw appeared(destination, code)
        case .unsupported: break
        }
        guard mkdir(destination, 0o755) == 0 else { throw appeared(destination, errno) }
        guard rename(source, destination) != 0 else { return }
        let code = errno
        rmdir(destination)  // ours, and empty unless someone wrote into it; then it stays
        throw appeared(destination, code)
    }

    /// Replaces the folder at `destination` with the finished one at `source`. Linux: `renameat2(2)` with
    /// `RENAME_EXCHANGE` swaps the two in one step, then the old folder (now at `source`) is removed; macOS:
    /// `renamex_np(2)` with `RENAME_SWAP`. Elsewhere the old folder is renamed to `aside`, the new one into place
    /// (the old one is renamed back if that fails), then the old one removed. Either way the name never points at
    /// nothing for longer than between two renames, and never at a partial folder.
    static func replaceInPlace(_ source: String, _ destination: String, aside: String) throws(WriteError) {
        switch renameFlagged(source, destination, exchange: true) {
        case .done:
            try? FileManager.default.removeItem(atPath: source)
            return
        case .failed(let code) where code == ENOENT:
            // The old folder went away meanwhile: nothing to replace.
            return try moveIntoPlace(source, destination)
        case .failed(let code):
            throw WriteError(path: destination, message: String(cString: strerror(code)))
        case .unsupported:
            break
        }
        try? FileManager.default.removeItem(atPath: aside)
        guard rename(destination, aside) == 0 else {
            throw WriteError(path: destination, message: String(cString: strerror(errno)))
        }
        guard rename(source, destination) == 0 else {
            let code = errno
            rename(aside, destination)
            throw WriteError(path: destination, message: String(cString: strerror(code)))
        }
        try? FileManager.default.removeItem(atPath: aside)
    }

    enum FlaggedRename {
        case done
        case failed(Int32)
        /// The call or the flag is not available here (old kernel or C library, or the file system refuses it).
        case unsupported
    }

    /// `rename` that refuses an existing destination (`exchange` false) or swaps source and destination (`exchange`
    /// true), when the system offers it.
    static func renameFlagged(_ source: String, _ destination: String, exchange: Bool) -> FlaggedRename {
        #if canImport(Glibc)
            // `renameat2` is in glibc 2.28 and later but not in Swift's Glibc module (it needs _GNU_SOURCE); it is
            // looked up by name. RENAME_NOREPLACE = 1, RENAME_EXCHANGE = 2 (linux/fs.h).
            typealias RenameAt2 =
                @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "renameat2") else { return .unsupported }
            let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
            let result = renameat2(AT_FDCWD, source, AT_FDCWD, destination, exchange ? 2 : 1)
        #elseif canImport(Darwin)
            let result = renamex_np(source, destination, exchange ? UInt32(RENAME_SWAP) : UInt32(RENAME_EXCL))
        #else
            return .unsupported
        #endif
        if result == 0 { return .done }
        let code = errno
        if code == EINVAL || code == ENOSYS || code == ENOTSUP { return .unsupported }
        return .failed(code)
    }

    static func appeared(_ destination: String, _ code: Int32) -> WriteError {
        if code == EEXIST || code == ENOTEMPTY || code == ENOTDIR || code == EISDIR {
            return WriteError(
                path: destination,
                message:
                    "it appeared while the fixtures were being written; it was left as it is and nothing was written")
        }
        return WriteError(path: destination, message: String(cString: strerror(code)))
    }

    /// Removes the hidden folders that runs killed by SIGKILL left in `parent`: `.NAME.partial-PID` (a write in
    /// progress) and `.NAME.old-PID` (a replaced folder being removed), but only those whose process no longer
    /// exists (`kill(PID, 0)` fails with `ESRCH`). A folder of a running process, or of a process this one may not
    /// signal (`EPERM`: it exists), is kept. An `.NAME.old-PID` folder whose `NAME` is missing (the run was killed
    /// between the two renames of a replacement without `RENAME_EXCHANGE`) is renamed back to `NAME` instead: the
    /// old folder is never lost. Returns the names removed or restored.
    @discardableResult
    public static func removeAbandonedFolders(in parent: String) -> [String] {
        let own = ProcessInfo.processInfo.processIdentifier
        var handled: [String] = []
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []).sorted() {
            guard name.hasPrefix("."), let (base, pid) = abandonedFolder(name).map({ ($0.name, $0.pid) }), pid != own,
                pid > 0
            else { continue }
            guard kill(pid, 0) == -1, errno == ESRCH else { continue }
            let path = parent + "/" + name
            if name.hasSuffix(".old-\(pid)"), !FileManager.default.fileExists(atPath: parent + "/" + base) {
                if (try? moveIntoPlace(path, parent + "/" + base)) != nil { handled.append(name) }
                continue
            }
            if (try? FileManager.default.removeItem(atPath: path)) != nil { handled.append(name) }
        }
        return handled
    }

    /// NAME and PID of `.NAME.partial-PID` or `.NAME.old-PID`; nil for any other name.
    static func abandonedFolder(_ name: String) -> (name: String, pid: pid_t)? {
        for marker in [".partial-", ".old-"] {
            guard let range = name.range(of: marker, options: .backwards),
                range.lowerBound > name.index(after: name.startIndex)
            else { continue }
            let digits = name[range.upperBound...]
            guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let pid = pid_t(exactly: Int64(digits)!)
            else { continue }
            return (String(name[name.index(after: name.startIndex)..<range.lowerBound]), pid)
        }
        return nil
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
