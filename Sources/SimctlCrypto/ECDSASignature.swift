// ECDSA signatures (r, s) in their two encodings: raw r || s (JWS, RFC 7518 section 3.4) and DER
// (SEC 1 section C.5, RFC 3279 section 2.2.3). Part of SimctlCrypto: cryptography for simulated test data only.

/// An ECDSA P-256 signature: the integers r and s.
///
/// Construction checks only the encoding; whether r and s lie in [1, n-1] is checked by verification, which
/// rejects them otherwise.
package struct ECDSASignature: Sendable, Hashable {
    /// r and s, plain 256-bit integers.
    let r: UInt256
    let s: UInt256

    init(r: UInt256, s: UInt256) {
        self.r = r
        self.s = s
    }

    /// A signature from its raw form: r || s, each a 32-byte big-endian integer (64 bytes, the JWS form).
    package init(rawRepresentation: [UInt8]) throws {
        guard rawRepresentation.count == 64 else {
            throw CryptoFormatError(
                "a raw P-256 signature is 64 bytes (r || s); found \(rawRepresentation.count) bytes")
        }
        (r, s) = rawRepresentation.withUnsafeBytes {
            (
                UInt256(bigEndian: UnsafeRawBufferPointer(rebasing: $0[0..<32])),
                UInt256(bigEndian: UnsafeRawBufferPointer(rebasing: $0[32..<64]))
            )
        }
    }

    /// A signature from strict DER: SEQUENCE { INTEGER r, INTEGER s } with definite, minimal lengths, minimal
    /// non-negative integer encodings, each at most 256 bits, and nothing after the sequence.
    package init(derRepresentation der: [UInt8]) throws {
        var reader = StrictDERReader(bytes: der)
        guard try reader.readTag() == 0x30 else {
            throw CryptoFormatError("a DER ECDSA signature starts with a SEQUENCE (0x30)")
        }
        let length = try reader.readLength()
        guard length == reader.remaining else {
            throw CryptoFormatError(
                "the DER ECDSA signature's SEQUENCE length is \(length) but \(reader.remaining) bytes follow")
        }
        let r = try reader.readUnsignedInteger(named: "r")
        let s = try reader.readUnsignedInteger(named: "s")
        guard reader.remaining == 0 else {
            throw CryptoFormatError("the DER ECDSA signature has \(reader.remaining) bytes after INTEGER s")
        }
        self.init(r: r, s: s)
    }

    /// r || s, 64 bytes.
    package var rawRepresentation: [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        out.withUnsafeMutableBytes {
            r.store(bigEndianInto: $0.baseAddress!)
            s.store(bigEndianInto: $0.baseAddress! + 32)
        }
        return out
    }

    /// DER: SEQUENCE { INTEGER r, INTEGER s }, minimal encodings.
    package var derRepresentation: [UInt8] {
        let body = Self.derInteger(r) + Self.derInteger(s)
        return [0x30, UInt8(body.count)] + body  // at most 70 bytes: the short length form always applies
    }

    private static func derInteger(_ value: UInt256) -> [UInt8] {
        var bytes = Array(value.bigEndianBytes.drop { $0 == 0 })
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return [0x02, UInt8(bytes.count)] + bytes
    }
}

/// Reads the few DER elements of an ECDSA signature, rejecting every non-canonical form (X.690 section 10).
private struct StrictDERReader {
    let bytes: [UInt8]
    var offset = 0

    var remaining: Int { bytes.count - offset }

    mutating func readByte(_ what: String) throws -> UInt8 {
        guard offset < bytes.count else {
            throw CryptoFormatError("the DER ECDSA signature ends early, inside \(what)")
        }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func readTag() throws -> UInt8 { try readByte("a tag") }

    /// A definite length in its minimal form. A signature's lengths are all below 128, so only the short form
    /// can be minimal for a valid signature; longer lengths are read (to name them) and then refused by callers.
    mutating func readLength() throws -> Int {
        let first = try readByte("a length")
        if first < 0x80 { return Int(first) }
        if first == 0x80 {
            throw CryptoFormatError("the DER ECDSA signature uses an indefinite length (0x80), which DER forbids")
        }
        let count = Int(first & 0x7f)
        guard count <= 4 else {
            throw CryptoFormatError("the DER ECDSA signature has a \(count)-byte length field")
        }
        var value = 0
        for index in 0..<count {
            let byte = try readByte("a length")
            if index == 0 && byte == 0 {
                throw CryptoFormatError("the DER ECDSA signature's length has a leading zero byte (not minimal)")
            }
            value = value << 8 | Int(byte)
        }
        if value < 0x80 {
            throw CryptoFormatError("the DER ECDSA signature uses the long length form for \(value) (not minimal)")
        }
        return value
    }

    /// INTEGER, minimal and non-negative, value below 2^256.
    mutating func readUnsignedInteger(named name: String) throws -> UInt256 {
        guard try readTag() == 0x02 else {
            throw CryptoFormatError("the DER ECDSA signature's \(name) is not an INTEGER (tag 0x02)")
        }
        let length = try readLength()
        guard length >= 1 else {
            throw CryptoFormatError("the DER ECDSA signature's INTEGER \(name) has no content bytes")
        }
        guard length <= remaining else {
            throw CryptoFormatError("the DER ECDSA signature's INTEGER \(name) runs past the end")
        }
        let content = bytes[offset..<(offset + length)]
        offset += length
        let first = content[content.startIndex]
        if first & 0x80 != 0 {
            throw CryptoFormatError("the DER ECDSA signature's INTEGER \(name) is negative")
        }
        if length > 1 && first == 0 && content[content.startIndex + 1] & 0x80 == 0 {
            throw CryptoFormatError("the DER ECDSA signature's INTEGER \(name) has a redundant leading zero")
        }
        let magnitude = first == 0 && length > 1 ? content.dropFirst() : content
        guard magnitude.count <= 32 else {
            throw CryptoFormatError("the DER ECDSA signature's INTEGER \(name) is longer than 256 bits")
        }
        let padded = [UInt8](repeating: 0, count: 32 - magnitude.count) + magnitude
        return UInt256(bigEndian: padded)
    }
}
