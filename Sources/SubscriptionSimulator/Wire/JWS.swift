/// Signs JWS payloads (RFC 7515). Two signers ship: ``ES256Signer`` (real ECDSA P-256 signatures with an
/// Apple-shaped certificate chain, for the `Sandbox` and `Production` environments) and ``UnsignedTestSigner``
/// (Apple's header shape with a placeholder signature, for `LocalTesting` and `Xcode`).
public protocol PayloadSigner: Sendable {
    /// The protected header (`alg`, `x5c`, ...).
    var header: JSONValue { get }
    /// `base64url` of the canonical JSON of ``header``; signers that sign often compute it once.
    var encodedHeader: String { get }
    /// The signature bytes over the signing input `base64url(header).base64url(payload)`.
    func signature(for signingInput: [UInt8]) -> [UInt8]
}

extension PayloadSigner {
    public var encodedHeader: String { Base64URL.encode(Array(CanonicalJSON.string(header).utf8)) }
}

/// Apple's header shape, `{"alg":"ES256","x5c":[leaf, intermediate, root]}` (reference §2.2, S-HDR), with three
/// fixed placeholder certificates and a deterministic 64-byte placeholder signature (FNV-1a of the signing input,
/// expanded). **The signature is not valid.** Apple's official libraries skip signature verification only for the
/// `LocalTesting` and `Xcode` environments, so payloads signed this way decode there and nowhere else; use
/// ``ES256Signer`` for `Sandbox` and `Production`.
public struct UnsignedTestSigner: PayloadSigner {
    public init() {}

    /// Placeholder certificate strings (standard base64, as `x5c` requires); not real certificates.
    public static let placeholderCertificates = [
        "U0lNQ1RMLUxFQUYtQ0VSVElGSUNBVEUtTk9ULVJFQUw=",
        "U0lNQ1RMLUlOVEVSTUVESUFURS1DRVJUSUZJQ0FURS1OT1QtUkVBTA==",
        "U0lNQ1RMLVJPT1QtQ0VSVElGSUNBVEUtTk9ULVJFQUw=",
    ]

    public var header: JSONValue {
        .object(["alg": .string("ES256"), "x5c": .array(Self.placeholderCertificates.map(JSONValue.string))])
    }

    /// The header never changes: encoded once (it was 7% of encoding a notification).
    public var encodedHeader: String { Self.encodedHeaderText }
    static let encodedHeaderText = Base64URL.encode(Array(CanonicalJSON.string(UnsignedTestSigner().header).utf8))

    public func signature(for signingInput: [UInt8]) -> [UInt8] {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in signingInput {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        var out: [UInt8] = []
        for block in 0..<8 {
            let word = SplitMix64.mix(hash &+ UInt64(block))
            for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return out
    }
}

/// JWS compact serialization (RFC 7515): `base64url(header).base64url(payload).base64url(signature)`.
public enum JWS {
    public static func compact(payload: JSONValue, signer: some PayloadSigner) -> String {
        var out: [UInt8] = []
        appendCompact(payload: payload, signer: signer, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// ``compact(payload:signer:)`` appended to `out` as bytes, with no intermediate strings.
    static func appendCompact(payload: JSONValue, signer: some PayloadSigner, to out: inout [UInt8]) {
        var json: [UInt8] = []
        json.reserveCapacity(2048)
        CanonicalJSON.write(payload, into: &json, indent: nil, depth: 0)
        let header = signer.encodedHeader
        out.reserveCapacity(out.count + header.utf8.count + json.count / 3 * 4 + 96)
        let start = out.count
        out.append(contentsOf: header.utf8)
        out.append(UInt8(ascii: "."))
        Base64URL.append(json, alphabet: Base64URL.urlAlphabet, to: &out)
        let signature = signer.signature(for: Array(out[start...]))
        out.append(UInt8(ascii: "."))
        Base64URL.append(signature, alphabet: Base64URL.urlAlphabet, to: &out)
    }

    public static func decodeHeader(_ jws: String) throws(JWSDecodingError) -> JSONValue {
        try decodePart(jws, 0)
    }

    public static func decodePayload(_ jws: String) throws(JWSDecodingError) -> JSONValue {
        try decodePart(jws, 1)
    }

    static func decodePart(_ jws: String, _ index: Int) throws(JWSDecodingError) -> JSONValue {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw JWSDecodingError(message: "a compact JWS has 3 parts, found \(parts.count)")
        }
        guard let bytes = Base64URL.decode(String(parts[index])) else {
            throw JWSDecodingError(message: "part \(index + 1) is not base64url")
        }
        do throws(JSONParseError) {
            return try CanonicalJSON.parse(String(decoding: bytes, as: UTF8.self))
        } catch {
            throw JWSDecodingError(message: "part \(index + 1) is not JSON: \(error)")
        }
    }
}

public struct JWSDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Base64 (RFC 4648 §4) and base64url without padding (§5), written here so output never depends on a platform.
public enum Base64URL {
    static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// base64url, no padding.
    public static func encode(_ bytes: [UInt8]) -> String { encode(bytes, alphabet: urlAlphabet, pad: false) }

    /// Standard base64 with padding (as in `x5c`).
    public static func encodeStandard(_ bytes: [UInt8]) -> String {
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

    /// Appends unpadded base64 of `bytes` in `alphabet` to `out` (``encode(_:)`` without the string).
    static func append(_ bytes: [UInt8], alphabet: [UInt8], to out: inout [UInt8]) {
        let rest = bytes.count % 3
        let length = bytes.count / 3 * 4 + (rest == 0 ? 0 : rest + 1)
        let start = out.count
        // An Array of zeros, not `repeatElement`: appending a Repeated walks it element by element through generic
        // code in debug builds (measured: two thirds of a debug `--format jsonl` run).
        out.append(contentsOf: [UInt8](repeating: 0, count: length))
        out.withUnsafeMutableBufferPointer { buffer in
            alphabet.withUnsafeBufferPointer { alphabet in
                bytes.withUnsafeBufferPointer { bytes in
                    var o = start
                    var i = 0
                    while i + 3 <= bytes.count {
                        let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                        buffer[o] = alphabet[Int(n >> 18 & 63)]
                        buffer[o + 1] = alphabet[Int(n >> 12 & 63)]
                        buffer[o + 2] = alphabet[Int(n >> 6 & 63)]
                        buffer[o + 3] = alphabet[Int(n & 63)]
                        o += 4
                        i += 3
                    }
                    if rest > 0 {
                        let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
                        buffer[o] = alphabet[Int(n >> 18 & 63)]
                        buffer[o + 1] = alphabet[Int(n >> 12 & 63)]
                        if rest == 2 { buffer[o + 2] = alphabet[Int(n >> 6 & 63)] }
                    }
                }
            }
        }
    }

    /// Decodes base64url (padding optional); nil on any other character.
    public static func decode(_ text: String) -> [UInt8]? {
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
