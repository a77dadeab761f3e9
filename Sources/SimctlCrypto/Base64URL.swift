import CBase64

/// Base64 (RFC 4648 §4) and base64url without padding (§5), written here so output never depends on a platform.
package enum Base64URL {
    static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// base64url, no padding.
    package static func encode(_ bytes: [UInt8]) -> String { encode(bytes, alphabet: urlAlphabet, pad: false) }

    /// Standard base64 with padding (as in `x5c`).
    package static func encodeStandard(_ bytes: [UInt8]) -> String {
        encode(bytes, alphabet: standardAlphabet, pad: true)
    }

    static func encode(_ bytes: [UInt8], alphabet: [UInt8], pad: Bool) -> String {
        let rest = bytes.count % 3
        let length = bytes.count / 3 * 4 + (rest == 0 ? 0 : pad ? 4 : rest + 1)
        return String(unsafeUninitializedCapacity: length) { out in
            var o = 0
            func put(_ n: UInt32, _ shift: UInt32) {
                out[o] = alphabet[Int(n >> shift & 63)]
                o += 1
            }
            var i = 0
            while i + 3 <= bytes.count {
                let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                put(n, 18)
                put(n, 12)
                put(n, 6)
                put(n, 0)
                i += 3
            }
            if rest > 0 {
                let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
                put(n, 18)
                put(n, 12)
                if rest == 2 { put(n, 6) }
                while pad && o < length {
                    out[o] = UInt8(ascii: "=")
                    o += 1
                }
            }
            return o
        }
    }

    /// An encoder of the C target (`CBase64`): `portable` runs everywhere, `x86SSSE3` where the CPU has SSSE3,
    /// `x86AVX2` where it has AVX2 (and the operating system saves its registers). All write the same characters.
    package enum Engine: Int32, Sendable, CaseIterable {
        case portable = 0
        case x86SSSE3 = 1
        case x86AVX2 = 2

        /// The fastest encoder this CPU runs (detected once).
        package static let best = Engine(rawValue: cbase64_best_engine()) ?? .portable

        /// Whether this CPU runs the encoder.
        package var isAvailable: Bool { cbase64_engine_available(rawValue) != 0 }
    }

    /// Appends unpadded base64url of `bytes` to `out` (3 bytes give 4 characters) with `engine`. Each character is
    /// written once, straight into the array's spare capacity (``URLCharacters``).
    package static func appendURL(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8], engine: Engine = .best) {
        let length = urlLength(bytes.count)
        guard length > 0 else { return }
        out.append(contentsOf: URLCharacters(source: bytes, count: length, engine: engine))
    }

    /// The length of unpadded base64url for `count` bytes.
    static func urlLength(_ count: Int) -> Int { count / 3 * 4 + (count % 3 == 0 ? 0 : count % 3 + 1) }

    /// The base64url characters of a buffer as a sequence whose `_copyContents(initializing:)` encodes straight
    /// into the destination: `Array.append(contentsOf:)` reserves `underestimatedCount` (the exact length) and
    /// hands its uninitialized tail to it, so no byte is written twice (no zero-fill before the encoding).
    struct URLCharacters: Sequence {
        let source: UnsafeRawBufferPointer
        let count: Int
        let engine: Engine

        var underestimatedCount: Int { count }

        func makeIterator() -> IndexingIterator<[UInt8]> {
            [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                Base64URL.encodeURL(source, into: UnsafeMutableRawPointer(buffer.baseAddress!), engine: engine)
                initialized = count
            }.makeIterator()
        }

        func _copyContents(initializing buffer: UnsafeMutableBufferPointer<UInt8>) -> (
            IndexingIterator<[UInt8]>, Int
        ) {
            guard buffer.count >= count, let base = buffer.baseAddress else {
                // Not room for all of it (no caller of the standard library does this): element by element.
                var iterator = makeIterator()
                var written = 0
                while written < buffer.count, let byte = iterator.next() {
                    buffer.initializeElement(at: written, to: byte)
                    written += 1
                }
                return (iterator, written)
            }
            Base64URL.encodeURL(source, into: UnsafeMutableRawPointer(base), engine: engine)
            return ([UInt8]().makeIterator(), count)
        }
    }

    /// Writes unpadded base64url of `bytes` at `destination` (``urlLength(_:)`` bytes) with `engine`.
    static func encodeURL(_ bytes: UnsafeRawBufferPointer, into destination: UnsafeMutableRawPointer, engine: Engine) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        cbase64_url_encode(
            engine.rawValue, source.assumingMemoryBound(to: UInt8.self), bytes.count,
            destination.assumingMemoryBound(to: UInt8.self))
    }

    /// Decodes base64url (padding optional); nil on any other character.
    package static func decode(_ text: String) -> [UInt8]? {
        var sextets = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in urlAlphabet.enumerated() { sextets[Int(byte)] = UInt8(value) }
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") { continue }
            let value = sextets[Int(byte)]
            guard value != 0xFF else { return nil }
            values.append(value)
        }
        if values.count % 4 == 1 { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(values.count / 4 * 3 + 2)
        var i = 0
        while i < values.count {
            let chunk = values[i..<min(i + 4, values.count)]
            var n: UInt32 = 0
            for (k, v) in chunk.enumerated() { n |= UInt32(v) << UInt32(18 - 6 * k) }
            out.append(UInt8(n >> 16 & 0xFF))
            if chunk.count > 2 { out.append(UInt8(n >> 8 & 0xFF)) }
            if chunk.count > 3 { out.append(UInt8(n & 0xFF)) }
            i += 4
        }
        return out
    }
}
