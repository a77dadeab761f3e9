import Foundation
import SubscriptionSimulator

/// Reads an input file for a command: the whole file as UTF-8 text, or an error in the `FILE:LINE:COLUMN: error:`
/// form that says why (no such file, permission denied, a folder, too large, not UTF-8 at a place).
enum InputFile {
    /// Input files larger than this are refused before they are read (a scenario of a million customers is about
    /// 75 MB); `/dev/zero` or a pipe that never ends cannot exhaust memory.
    static let maximumBytes = 256 << 20

    enum Failure: Error {
        /// The file cannot be opened or read (exit 66).
        case unreadable(String)
        /// The file was read but is not acceptable text (exit 65).
        case invalid(String)
    }

    static func read(_ file: String) -> Result<String, Failure> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
            return .failure(.unreadable("\(file):1:1: error: cannot read the file: no such file or directory"))
        }
        if isDirectory.boolValue {
            return .failure(.unreadable("\(file):1:1: error: cannot read the file: it is a directory, not a file"))
        }
        guard let handle = FileHandle(forReadingAtPath: file) else {
            let reason =
                FileManager.default.isReadableFile(atPath: file) ? "it cannot be opened" : "permission denied"
            return .failure(.unreadable("\(file):1:1: error: cannot read the file: \(reason)"))
        }
        defer { try? handle.close() }
        var bytes: [UInt8] = []
        while true {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 1 << 20) } catch {
                return .failure(.unreadable("\(file):1:1: error: cannot read the file: \(error.localizedDescription)"))
            }
            guard let chunk, !chunk.isEmpty else { break }
            bytes.append(contentsOf: chunk)
            if bytes.count > maximumBytes {
                return .failure(
                    .invalid("\(file):1:1: error: the file is larger than \(maximumBytes >> 20) MB; no scenario is"))
            }
        }
        // An empty file (or /dev/null) is text; the reader reports it as empty.
        if let text = String(validating: bytes, as: UTF8.self) { return .success(text) }
        let place = firstInvalidUTF8(bytes)
        return .failure(
            .invalid(
                "\(file):\(place.line):\(place.column): error: the file is not UTF-8 text: byte 0x"
                    + String(bytes[place.offset], radix: 16, uppercase: true)
                    + " at offset \(place.offset) does not start a valid UTF-8 character; save the file as UTF-8"))
    }

    /// Line and column (in Unicode scalars, 1-based) of the first byte that is not valid UTF-8.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> (offset: Int, line: Int, column: Int) {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        var line = 1
        var column = 1
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                if encoded.count == 1 && encoded.first == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
                offset += encoded.count
            case .error:
                return (offset, line, column)
            case .emptyInput:
                return (max(0, bytes.count - 1), line, column)
            }
        }
    }
}
