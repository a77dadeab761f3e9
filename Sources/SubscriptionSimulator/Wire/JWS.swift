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
    /// ``signature(for:)`` over bytes the caller holds (the signing input is written in place, inside the line
    /// being built); by default it copies them and calls ``signature(for:)``.
    func signature(forSigningInputIn signingInput: UnsafeRawBufferPointer) -> [UInt8]
}

extension PayloadSigner {
    public var encodedHeader: String { Base64URL.encode(Array(CanonicalJSON.string(header).utf8)) }

    public func signature(forSigningInputIn signingInput: UnsafeRawBufferPointer) -> [UInt8] {
        signature(for: Array(signingInput))
    }
}

/// Apple's header shape, `{"alg":"ES256","x5c":[leaf, intermediate, root]}` (reference §2.2, S-HDR), with three
/// fixed placeholder certificates and a deterministic 64-byte placeholder signature (``placeholderSignature(of:)``:
/// a 64-bit hash of the signing input, expanded). **The signature is not valid.** Apple's official libraries skip signature verification only for the
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
        signingInput.withUnsafeBytes { Self.placeholderSignature(of: $0) }
    }

    public func signature(forSigningInputIn signingInput: UnsafeRawBufferPointer) -> [UInt8] {
        Self.placeholderSignature(of: signingInput)
    }

    /// The placeholder: deterministic and different for different inputs, and cheap, since every LocalTesting
    /// notification signs about 5 KB across its three JWS. The input is read 8 bytes at a time (little-endian) into
    /// four independent lanes (each `rotate(lane ^ word, 31) × odd constant`), so the multiplications overlap
    /// instead of forming one byte-by-byte chain; the last bytes and the length are mixed in, the lanes folded with
    /// SplitMix64's finalizer, and the 64-bit result expanded to 64 bytes as SplitMix64 of `hash + block` for
    /// blocks 0 to 7, each little-endian.
    static func placeholderSignature(of input: UnsafeRawBufferPointer) -> [UInt8] {
        let multiplier: UInt64 = 0x9FB2_1C65_1E98_DF25
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (
            0x243F_6A88_85A3_08D3, 0x1319_8A2E_0370_7344, 0xA409_3822_299F_31D0, 0x082E_FA98_EC4E_6C89
        )
        @inline(__always) func step(_ lane: UInt64, _ word: UInt64) -> UInt64 {
            let x = lane ^ word
            return (x << 31 | x >> 33) &* multiplier
        }
        @inline(__always) func word(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: input.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        let count = input.count
        var offset = 0
        while offset + 32 <= count {
            lanes.0 = step(lanes.0, word(offset))
            lanes.1 = step(lanes.1, word(offset + 8))
            lanes.2 = step(lanes.2, word(offset + 16))
            lanes.3 = step(lanes.3, word(offset + 24))
            offset += 32
        }
        while offset + 8 <= count {
            lanes.0 = step(lanes.0, word(offset))
            offset += 8
        }
        var last: UInt64 = 0
        for index in offset..<count { last |= UInt64(input[index]) << UInt64(8 * (index - offset)) }
        lanes.1 = step(lanes.1, last)
        var hash = UInt64(count)
        hash = SplitMix64.mix(hash ^ lanes.0)
        hash = SplitMix64.mix(hash ^ lanes.1)
        hash = SplitMix64.mix(hash ^ lanes.2)
        hash = SplitMix64.mix(hash ^ lanes.3)
        return [UInt8](unsafeUninitializedCapacity: 64) { out, initialized in
            for block in 0..<8 {
                let value = SplitMix64.mix(hash &+ UInt64(block))
                for byte in 0..<8 { out[block * 8 + byte] = UInt8(truncatingIfNeeded: value >> UInt64(8 * byte)) }
            }
            initialized = 64
        }
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
        append(payloadJSON: json, signing: JWSSigning(signer), to: &out)
    }

    /// Appends `base64url(header).base64url(payloadJSON).base64url(signature)` to `out`: the header's bytes are
    /// cached in `signing`, the signing input is written in place in `out` and signed there.
    static func append(payloadJSON: [UInt8], signing: JWSSigning, to out: inout [UInt8]) {
        let start = out.count
        out.reserveCapacity(start + signing.header.count + payloadJSON.count / 3 * 4 + 96)
        out.append(contentsOf: signing.header)
        out.append(UInt8(ascii: "."))
        payloadJSON.withUnsafeBytes { Base64URL.appendURL($0, to: &out) }
        let signature = out.withUnsafeBytes {
            signing.signer.signature(forSigningInputIn: UnsafeRawBufferPointer(rebasing: $0[start...]))
        }
        out.append(UInt8(ascii: "."))
        signature.withUnsafeBytes { Base64URL.appendURL($0, to: &out) }
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

/// A signer with its encoded header as bytes, computed once (the header is the same in every JWS it signs).
struct JWSSigning: Sendable {
    let signer: any PayloadSigner
    let header: [UInt8]

    init(_ signer: any PayloadSigner) {
        self.signer = signer
        header = Array(signer.encodedHeader.utf8)
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

    /// Two base64url characters for each 12-bit value, stored so that writing one `UInt16` puts the first character
    /// first in memory.
    static let urlPairs: [UInt16] = (0..<4096).map { value in
        (UInt16(urlAlphabet[value >> 6]) | UInt16(urlAlphabet[value & 63]) << 8).littleEndian
    }
    static let zeros = [UInt8](repeating: 0, count: 4096)

    /// Appends unpadded base64url of `bytes` to `out`: 3 bytes give 4 characters, written as two table lookups.
    static func appendURL(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
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
