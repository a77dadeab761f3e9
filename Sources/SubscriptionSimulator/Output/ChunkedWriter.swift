/// Bytes collected and handed on in chunks.
struct ChunkedWriter {
    var buffer: [UInt8] = []
    let write: ([UInt8]) -> Void
    static let chunk = 1 << 16
    /// The most buffers a ``VectorWrite`` is given at once (`writev(2)` takes up to `IOV_MAX`, 1,024 on Linux).
    static let vectorBuffers = 512

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

/// Writes the buffers, in order, as one write of their concatenation would (as `writev(2)` does); the pointers are
/// valid only during the call. A run in parts writes its merged lines with it straight from the parts' buffers
/// (``RunPlan/writeVector``), at most 512 buffers a call.
public typealias VectorWrite = ([UnsafeRawBufferPointer]) -> Void
