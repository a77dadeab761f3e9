/// The encodings of P-256 keys in files: SubjectPublicKeyInfo (RFC 5280 §4.1.2.7, RFC 5480), SEC1
/// `ECPrivateKey` (RFC 5915, PEM label `EC PRIVATE KEY`) and PKCS#8 `PrivateKeyInfo` (RFC 5208/5958, label
/// `PRIVATE KEY`). Only named-curve P-256 keys are read; explicit curve parameters (RFC 5480 §2.1.1) are refused.
/// For test data only (see ``DER``).
package enum ECKeyEncoding {
    /// `id-ecPublicKey` (RFC 5480 §2.1.1).
    static let ecPublicKey = DER.ObjectIdentifier("1.2.840.10045.2.1")!
    /// `secp256r1` / `prime256v1` (RFC 5480 §2.1.1.1).
    static let prime256v1 = DER.ObjectIdentifier("1.2.840.10045.3.1.7")!

    /// `AlgorithmIdentifier { id-ecPublicKey, prime256v1 }`.
    static var algorithm: [UInt8] {
        DER.sequence([DER.objectIdentifier(ecPublicKey), DER.objectIdentifier(prime256v1)])
    }

    // MARK: - Public keys

    /// SubjectPublicKeyInfo DER of a P-256 key (uncompressed point).
    static func subjectPublicKeyInfo(_ key: P256.PublicKey) -> [UInt8] {
        DER.sequence([algorithm, DER.bitString(key.x963Representation)])
    }

    /// Reads a SubjectPublicKeyInfo DER element.
    static func publicKey(subjectPublicKeyInfo node: DERNode) throws(KeyEncodingError) -> P256.PublicKey {
        do throws(DERError) {
            let fields = try node.sequence("SubjectPublicKeyInfo")
            guard fields.count == 2 else { throw DERError("SubjectPublicKeyInfo has 2 fields, found \(fields.count)") }
            try checkAlgorithm(fields[0])
            let point = try fields[1].bitStringBytes("subjectPublicKey")
            do { return try P256.PublicKey(x963Representation: point) } catch {
                throw DERError("subjectPublicKey is not a point on P-256: \(error)")
            }
        } catch { throw KeyEncodingError(error.message) }
    }

    package static func publicKey(subjectPublicKeyInfoDER der: [UInt8]) throws(KeyEncodingError) -> P256.PublicKey {
        let node: DERNode
        do throws(DERError) { node = try DERNode.parse(der) } catch { throw KeyEncodingError(error.message) }
        return try publicKey(subjectPublicKeyInfo: node)
    }

    /// PEM `PUBLIC KEY` of a P-256 key.
    static func publicKeyPEM(_ key: P256.PublicKey) -> String {
        PEM.encode(label: "PUBLIC KEY", derBytes: subjectPublicKeyInfo(key))
    }

    static func checkAlgorithm(_ node: DERNode) throws(DERError) {
        let fields = try node.sequence("AlgorithmIdentifier")
        guard fields.count == 2 else {
            throw DERError("the EC AlgorithmIdentifier has 2 fields (algorithm, namedCurve), found \(fields.count)")
        }
        let algorithm = try fields[0].objectIdentifier("algorithm")
        guard algorithm == ecPublicKey else {
            throw DERError("expected an EC key (\(ecPublicKey)), found algorithm \(algorithm)")
        }
        try checkCurve(fields[1])
    }

    static func checkCurve(_ node: DERNode) throws(DERError) {
        guard node.tag == DER.Tag.objectIdentifier else {
            throw DERError("expected the named curve P-256 (\(prime256v1)); explicit curve parameters are not read")
        }
        let curve = try node.objectIdentifier("namedCurve")
        guard curve == prime256v1 else { throw DERError("expected the curve P-256 (\(prime256v1)), found \(curve)") }
    }

    // MARK: - Private keys

    /// SEC1 `ECPrivateKey` DER: version 1, the 32-byte scalar, `[0]` the curve and `[1]` the public key.
    static func sec1(_ key: P256.PrivateKey, includeParameters: Bool = true) -> [UInt8] {
        var fields = [DER.integer(1), DER.octetString(key.rawRepresentation)]
        if includeParameters { fields.append(DER.contextConstructed(0, DER.objectIdentifier(prime256v1))) }
        fields.append(DER.contextConstructed(1, DER.bitString(key.publicKey.x963Representation)))
        return DER.sequence(fields)
    }

    /// PKCS#8 `PrivateKeyInfo` DER: version 0, the EC algorithm with the curve, the SEC1 key without parameters.
    static func pkcs8(_ key: P256.PrivateKey) -> [UInt8] {
        DER.sequence([DER.integer(0), algorithm, DER.octetString(sec1(key, includeParameters: false))])
    }

    /// PEM `PRIVATE KEY` (PKCS#8), the form Apple's tools and most libraries expect.
    package static func pkcs8PEM(_ key: P256.PrivateKey) -> String {
        PEM.encode(label: "PRIVATE KEY", derBytes: pkcs8(key))
    }

    /// PEM `EC PRIVATE KEY` (SEC1), as `openssl ecparam -genkey` writes.
    static func sec1PEM(_ key: P256.PrivateKey) -> String {
        PEM.encode(label: "EC PRIVATE KEY", derBytes: sec1(key))
    }

    /// Reads a P-256 private key from PEM text holding one `PRIVATE KEY` (PKCS#8) or `EC PRIVATE KEY` (SEC1)
    /// block. When the file also carries the public key, it must match the private one.
    package static func privateKey(pem text: String) throws(KeyEncodingError) -> P256.PrivateKey {
        let block: PEM.Block
        do throws(PEMError) { block = try PEM.decodeSingle(text, labels: ["PRIVATE KEY", "EC PRIVATE KEY"]) } catch {
            throw KeyEncodingError(error.message)
        }
        return block.label == "PRIVATE KEY"
            ? try privateKey(pkcs8: block.derBytes) : try privateKey(sec1: block.derBytes)
    }

    static func privateKey(pkcs8 der: [UInt8]) throws(KeyEncodingError) -> P256.PrivateKey {
        let inner: [UInt8]
        do throws(DERError) {
            let fields = try DERNode.parse(der).sequence("PrivateKeyInfo")
            guard fields.count == 3 else {
                throw DERError("PrivateKeyInfo: expected version, algorithm and key (3 fields), found \(fields.count)")
            }
            let version = try fields[0].int64("PrivateKeyInfo version")
            guard version == 0 else { throw DERError("PrivateKeyInfo version must be 0, found \(version)") }
            try checkAlgorithm(fields[1])
            inner = try fields[2].octetString("privateKey")
        } catch { throw KeyEncodingError(error.message) }
        return try privateKey(sec1: inner)
    }

    static func privateKey(sec1 der: [UInt8]) throws(KeyEncodingError) -> P256.PrivateKey {
        do throws(DERError) {
            let fields = try DERNode.parse(der).sequence("ECPrivateKey")
            guard fields.count >= 2, fields.count <= 4 else {
                throw DERError("ECPrivateKey has 2 to 4 fields, found \(fields.count)")
            }
            let version = try fields[0].int64("ECPrivateKey version")
            guard version == 1 else { throw DERError("ECPrivateKey version must be 1 (RFC 5915), found \(version)") }
            let scalar = try fields[1].octetString("privateKey")
            guard scalar.count == 32 else {
                throw DERError("a P-256 private key is 32 bytes (RFC 5915 §3), found \(scalar.count)")
            }
            let key: P256.PrivateKey
            do { key = try P256.PrivateKey(rawRepresentation: scalar) } catch {
                throw DERError("the private key is not a valid P-256 scalar: \(error)")
            }
            var rest = fields.dropFirst(2)
            if let node = rest.first, node.tag == DER.Tag.contextConstructed(0) {
                let inner = try node.children()
                guard inner.count == 1 else { throw DERError("ECPrivateKey [0] holds one curve, found \(inner.count)") }
                try checkCurve(inner[0])
                rest = rest.dropFirst()
            }
            if let node = rest.first, node.tag == DER.Tag.contextConstructed(1) {
                let inner = try node.children()
                guard inner.count == 1 else { throw DERError("ECPrivateKey [1] holds one key, found \(inner.count)") }
                guard try inner[0].bitStringBytes("publicKey") == key.publicKey.x963Representation else {
                    throw DERError("the public key in the file does not belong to its private key")
                }
                rest = rest.dropFirst()
            }
            if let node = rest.first {
                throw DERError("ECPrivateKey: unexpected field with tag 0x\(DERNode.hex(node.tag))")
            }
            return key
        } catch { throw KeyEncodingError(error.message) }
    }
}

/// A key file that cannot be read; the message says what was expected and found.
package struct KeyEncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    package var message: String
    init(_ message: String) { self.message = message }
    package var description: String { message }
}
