/// Bytes collected and handed on in chunks.
struct ChunkedWriter {
    var buffer: [UInt8] = []
    let write: ([UInt8]) -> Void
    static let chunk = 1 << 16

    init(_ write: @escaping ([UInt8]) -> Void) {
        self.write = write
        buffer.reserveCapacity(Self.chunk + 8192)
    }

    mutating func append(_ text: String) { buffer.append(contentsOf: text.utf8) }

    mutating func flushIfFull() { if buffer.count >= Self.chunk { flush() } }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what the buffer holds, then `bytes` in one piece.
    mutating func pass(_ bytes: [UInt8]) {
        flush()
        if !bytes.isEmpty { write(bytes) }
    }
}
