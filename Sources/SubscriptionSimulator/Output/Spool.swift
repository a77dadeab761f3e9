import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Items (byte strings) written once and read back once in order, kept in an anonymous temporary file (`tmpfile(3)`,
/// removed when closed) past the first `limit` bytes, so what a long run must keep until its end does not stay in
/// memory. Each item is stored as its length (4 bytes, little-endian) and its bytes. The file holds chunks of whole
/// items, one per ``spill()``; their sizes and item counts are kept, so each chunk can be read on its own
/// (``chunks()``), by any thread. When the file cannot be created or written, the rest stays in memory.
final class Spool {
    var buffer: [UInt8] = []
    var bufferItems = 0
    var file: UnsafeMutablePointer<FILE>?
    var fileFailed = false
    /// Each chunk in the file: its byte count and how many items it holds.
    var fileChunks: [(bytes: Int, items: Int)] = []
    let limit: Int
    static let defaultLimit = 1 << 20

    init(limit: Int = Spool.defaultLimit) { self.limit = limit }

    deinit { if let file { fclose(file) } }

    func append(_ bytes: some Collection<UInt8>) {
        withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { buffer.append(contentsOf: $0) }
        buffer.append(contentsOf: bytes)
        bufferItems += 1
        if buffer.count >= limit { spill() }
    }

    func append(_ text: String) { append(ArraySlice(text.utf8)) }

    /// `count` items already in the spool's format (``TimelineRows``).
    func append(items bytes: ArraySlice<UInt8>, count: Int) {
        buffer.append(contentsOf: bytes)
        bufferItems += count
        if buffer.count >= limit { spill() }
    }

    /// Writes the buffer to the file as one chunk.
    func spill() {
        guard !buffer.isEmpty, !fileFailed else { return }
        if file == nil { file = tmpfile() }
        guard let file else {
            fileFailed = true
            return
        }
        let descriptor = fileno(file)
        let complete = buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if !(written < 0 && errno == EINTR) {
                    return false
                }
            }
            return true
        }
        // A chunk written in part is never read: reads go by the chunks' sizes.
        guard complete else {
            fileFailed = true
            return
        }
        fileChunks.append((buffer.count, bufferItems))
        buffer.removeAll(keepingCapacity: true)
        bufferItems = 0
    }

    /// The chunks to read back: the file's, then what is left in memory. Call after the last ``append(_:)``.
    func chunks() -> Chunks {
        var offsets: [Int] = []
        var sizes: [Int] = []
        var items: [Int] = []
        var offset = 0
        for chunk in fileChunks {
            offsets.append(offset)
            sizes.append(chunk.bytes)
            items.append(chunk.items)
            offset += chunk.bytes
        }
        items.append(bufferItems)
        return Chunks(
            descriptor: file.map { fileno($0) } ?? -1, offsets: offsets, sizes: sizes, items: items, memory: buffer)
    }

    /// A spool's chunks, to read back in any order from any thread while the spool lives (``read(_:into:)``).
    struct Chunks: Sendable {
        let descriptor: Int32
        let offsets: [Int]
        let sizes: [Int]
        /// How many items each chunk holds.
        let items: [Int]
        let memory: [UInt8]

        var count: Int { items.count }

        /// Puts chunk `index`'s bytes in `bytes` (empty when the file cannot be read).
        func read(_ index: Int, into bytes: inout [UInt8]) {
            guard index < sizes.count else { return bytes = memory }
            let size = sizes[index]
            if bytes.count < size { bytes.append(contentsOf: repeatElement(0, count: size - bytes.count)) }
            let complete = bytes.withUnsafeMutableBytes { buffer in
                var done = 0
                while done < size {
                    let read = pread(descriptor, buffer.baseAddress! + done, size - done, off_t(offsets[index] + done))
                    if read > 0 {
                        done += read
                    } else if !(read < 0 && errno == EINTR) {
                        return false
                    }
                }
                return true
            }
            bytes.removeLast(bytes.count - (complete ? size : 0))
        }
    }

    /// Reads the items back, from the start; call once, after the last ``append(_:)``.
    func reader() -> Reader { Reader(chunks: chunks()) }

    struct Reader {
        let chunks: Chunks
        var nextChunk = 0
        var chunk: [UInt8] = []
        var position = 0

        init(chunks: Chunks) { self.chunks = chunks }

        /// The next item's bytes, or nil at the end.
        mutating func next() -> ArraySlice<UInt8>? {
            while position + 4 > chunk.count {
                guard nextChunk < chunks.count else { return nil }
                chunks.read(nextChunk, into: &chunk)
                nextChunk += 1
                position = 0
            }
            var length = 0
            for i in 0..<4 { length |= Int(chunk[position + i]) << (8 * i) }
            position += 4
            guard position + length <= chunk.count else { return nil }
            defer { position += length }
            return chunk[position..<position + length]
        }

        mutating func nextString() -> String? { next().map { String(decoding: $0, as: UTF8.self) } }
    }
}
