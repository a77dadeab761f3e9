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

    /// Two base64url characters for each 12-bit value, stored so that writing one `UInt16` puts the first character
    /// first in memory.
    static let urlPairs: [UInt16] = (0..<4096).map { value in
        (UInt16(urlAlphabet[value >> 6]) | UInt16(urlAlphabet[value & 63]) << 8).littleEndian
    }
    static let zeros = [UInt8](repeating: 0, count: 4096)

    /// Appends unpadded base64url of `bytes` to `out`: 3 bytes give 4 characters, written as two table lookups.
    package static func appendURL(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        let full = bytes.count / 3
        let rest = bytes.count % 3
        let length = full * 4 + (rest == 0 ? 0 : rest + 1)
        guard length > 0, let source = bytes.baseAddress else { return }
        let start = out.count
        // Grows `out` by copying zeros from a contiguous array (a memcpy in every build) before they are overwritten.
        var left = length
        while left > 0 {
            let n = min(left, zeros.count)
            out.append(contentsOf: zeros[0..<n])
            left -= n
        }
        urlPairs.withUnsafeBufferPointer { pairs in
            out.withUnsafeMutableBytes { buffer in
                var o = buffer.baseAddress! + start
                var i = source
                var groups = full
                // 6 bytes at a time while 8 can be read: one big-endian load, four pair lookups, one 8-byte store.
                while groups >= 3 {
                    let w = UInt64(bigEndian: i.loadUnaligned(as: UInt64.self))
                    let chars =
                        UInt64(UInt16(littleEndian: pairs[Int(w >> 52)]))
                        | UInt64(UInt16(littleEndian: pairs[Int(w >> 40 & 0xFFF)])) << 16
                        | UInt64(UInt16(littleEndian: pairs[Int(w >> 28 & 0xFFF)])) << 32
                        | UInt64(UInt16(littleEndian: pairs[Int(w >> 16 & 0xFFF)])) << 48
                    o.storeBytes(of: chars.littleEndian, as: UInt64.self)
                    o += 8
                    i += 6
                    groups -= 2
                }
                for _ in 0..<groups {
                    let n =
                        UInt32(i.load(as: UInt8.self)) << 16 | UInt32(i.load(fromByteOffset: 1, as: UInt8.self)) << 8
                        | UInt32(i.load(fromByteOffset: 2, as: UInt8.self))
                    o.storeBytes(of: pairs[Int(n >> 12)], as: UInt16.self)
                    (o + 2).storeBytes(of: pairs[Int(n & 0xFFF)], as: UInt16.self)
                    o += 4
                    i += 3
                }
                if rest > 0 {
                    let second = rest == 2 ? UInt32(i.load(fromByteOffset: 1, as: UInt8.self)) << 8 : 0
                    let n = UInt32(i.load(as: UInt8.self)) << 16 | second
                    for k in 0...rest {
                        o.storeBytes(
                            of: urlAlphabet[Int(n >> UInt32(18 - 6 * k) & 63)], toByteOffset: k, as: UInt8.self)
                    }
                }
            }
        }
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
