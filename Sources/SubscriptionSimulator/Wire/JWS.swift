import SimctlCrypto

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
