/// The Online Certificate Status Protocol's messages (RFC 6960), as much as a test responder for the simulator's own
/// chains needs: the Authority Information Access extension that names a responder (RFC 5280 §4.2.2.1), requests
/// read strictly (§4.1), and responses built and signed with ecdsa-with-SHA256 by the issuer of the certificates
/// asked about (§4.2; the CA itself may sign, §2.6). The reader of responses is for tests. For test data only.
package enum OCSP {
    /// `id-pkix-ocsp-basic` (RFC 6960 §4.2.1): the response type of a ``BasicResponse``.
    static let basicResponseType = DER.ObjectIdentifier("1.3.6.1.5.5.7.48.1.1")!
    /// `id-pkix-ocsp-nonce` (RFC 6960 §4.4.1; RFC 8954 bounds it to 1-32 octets).
    static let nonceOID = DER.ObjectIdentifier("1.3.6.1.5.5.7.48.1.2")!
    /// The most single requests one request may carry; more is a malformed request here (a bound, not RFC 6960's).
    package static let maximumRequestCount = 16

    /// The hash functions a `CertID` may name here (RFC 6960 §4.1.1 lets the client choose): SHA-1
    /// (`1.3.14.3.2.26`, RFC 3279) and SHA-256 (`2.16.840.1.101.3.4.2.1`, RFC 5754), parameters NULL or absent.
    package enum HashAlgorithm: String, Hashable, Sendable, CaseIterable {
        case sha1 = "1.3.14.3.2.26"
        case sha256 = "2.16.840.1.101.3.4.2.1"

        var oid: DER.ObjectIdentifier { DER.ObjectIdentifier(rawValue)! }

        func hash(_ bytes: [UInt8]) -> [UInt8] {
            switch self {
            case .sha1: return SHA1.hash(bytes)
            case .sha256: return SHA256.hash(bytes)
            }
        }
    }

    /// A `CertID` (RFC 6960 §4.1.1): the hash of the issuer's name and of its public key (the BIT STRING's value,
    /// i.e. the uncompressed point), and the certificate's serial number. ``encoded`` is the DER as received, so a
    /// response echoes it byte for byte.
    package struct CertID: Hashable, Sendable {
        /// The hash algorithm's OID (another than ``HashAlgorithm``'s is kept, and then matches no certificate).
        package var hashAlgorithm: DER.ObjectIdentifier
        package var issuerNameHash: [UInt8]
        package var issuerKeyHash: [UInt8]
        /// The serial number's magnitude, big-endian, without a sign octet (as ``X509Certificate/serialNumber``).
        package var serialNumber: [UInt8]
        package var encoded: [UInt8]

        /// The `CertID` of `certificate`, issued by `issuer`, with `algorithm` (parameters NULL, as RFC 5754 §2
        /// allows and OpenSSL writes).
        package init(certificate: X509Certificate, issuer: X509Certificate, algorithm: HashAlgorithm) {
            hashAlgorithm = algorithm.oid
            issuerNameHash = algorithm.hash(issuer.subject.derEncoded)
            issuerKeyHash = algorithm.hash(issuer.publicKey.x963Representation)
            serialNumber = certificate.serialNumber
            encoded = DER.sequence([
                DER.sequence([DER.objectIdentifier(algorithm.oid), DER.null()]),
                DER.octetString(issuerNameHash), DER.octetString(issuerKeyHash),
                DER.unsignedInteger(serialNumber),
            ])
        }

        init(node: DERNode) throws(DERError) {
            let fields = try node.sequence("CertID")
            guard fields.count == 4 else {
                throw DERError(
                    "CertID has hashAlgorithm, issuerNameHash, issuerKeyHash, serialNumber; found \(fields.count) fields"
                )
            }
            let algorithm = try fields[0].sequence("CertID.hashAlgorithm")
            guard algorithm.count == 1 || algorithm.count == 2 else {
                throw DERError(
                    "CertID.hashAlgorithm has an OID and optional parameters; found \(algorithm.count) fields")
            }
            hashAlgorithm = try algorithm[0].objectIdentifier("CertID.hashAlgorithm")
            if algorithm.count == 2 { try algorithm[1].null("CertID.hashAlgorithm parameters") }
            issuerNameHash = try fields[1].octetString("CertID.issuerNameHash")
            issuerKeyHash = try fields[2].octetString("CertID.issuerKeyHash")
            guard issuerNameHash.count <= 64, issuerKeyHash.count <= 64 else {
                throw DERError("CertID: a hash of more than 64 octets")
            }
            serialNumber = try fields[3].unsignedIntegerBytes("CertID.serialNumber")
            guard serialNumber.count <= 20 else {
                throw DERError("CertID.serialNumber has \(serialNumber.count) octets; at most 20 (RFC 5280 §4.1.2.2)")
            }
            encoded = Array(node.encoded)
        }

        /// Whether this names `certificate` as issued by `issuer`.
        package func names(_ certificate: X509Certificate, issuedBy issuer: X509Certificate) -> Bool {
            isIssued(by: issuer) && serialNumber == certificate.serialNumber
        }

        /// Whether the issuer hashes are those of `issuer`.
        package func isIssued(by issuer: X509Certificate) -> Bool {
            guard let algorithm = HashAlgorithm(rawValue: hashAlgorithm.description) else { return false }
            return issuerNameHash == algorithm.hash(issuer.subject.derEncoded)
                && issuerKeyHash == algorithm.hash(issuer.publicKey.x963Representation)
        }
    }

    /// An `OCSPRequest` (RFC 6960 §4.1.1). Read strictly: DER, version v1 omitted (its DEFAULT), one to
    /// ``maximumRequestCount`` single requests, a nonce of 1-32 octets at most once (RFC 8954 §2.1). A `requestorName`,
    /// single-request extensions, other request extensions and a signature are read and ignored (a responder may
    /// ignore the signature, §4.1.2); critical unknown request extensions are refused.
    package struct Request: Hashable, Sendable {
        package var certIDs: [CertID]
        /// The nonce extension's value (the `extnValue` contents: an OCTET STRING's DER), echoed in the response.
        package var nonce: [UInt8]?

        package init(certIDs: [CertID], nonce: [UInt8]? = nil) {
            self.certIDs = certIDs
            self.nonce = nonce
        }

        /// The request's DER (unsigned, version omitted).
        package var derRepresentation: [UInt8] {
            var tbs = [DER.sequence(certIDs.map { DER.sequence([$0.encoded]) })]
            if let nonce {
                tbs.append(DER.contextConstructed(2, DER.sequence([OCSP.extensionDER(OCSP.nonceOID, nonce)])))
            }
            return DER.sequence([DER.sequence(tbs)])
        }

        /// Reads a DER `OCSPRequest`; the error says what is wrong (answer it with `malformedRequest`).
        package init(derRepresentation der: [UInt8]) throws(OCSPError) {
            do throws(DERError) {
                let outer = try DERNode.parse(der).sequence("OCSPRequest")
                guard outer.count == 1 || (outer.count == 2 && outer[1].tag == DER.Tag.contextConstructed(0)) else {
                    throw DERError("OCSPRequest has tbsRequest and an optional [0] optionalSignature")
                }
                var fields = try outer[0].sequence("TBSRequest")[...]
                if let first = fields.first, first.tag == DER.Tag.contextConstructed(0) {
                    throw DERError("TBSRequest: version v1 is the DEFAULT and must be omitted in DER (X.690 §11.5)")
                }
                if let first = fields.first, first.tag == DER.Tag.contextConstructed(1) { fields = fields.dropFirst() }
                guard let list = fields.first else { throw DERError("TBSRequest: requestList is missing") }
                fields = fields.dropFirst()
                let requests = try list.sequence("requestList")
                guard !requests.isEmpty else { throw DERError("requestList is empty") }
                guard requests.count <= OCSP.maximumRequestCount else {
                    throw DERError(
                        "requestList has \(requests.count) requests; this responder reads at most \(OCSP.maximumRequestCount)"
                    )
                }
                var ids: [CertID] = []
                for request in requests {
                    let parts = try request.sequence("Request")
                    guard parts.count == 1 || (parts.count == 2 && parts[1].tag == DER.Tag.contextConstructed(0)) else {
                        throw DERError("Request has reqCert and optional [0] singleRequestExtensions")
                    }
                    ids.append(try CertID(node: parts[0]))
                }
                var nonce: [UInt8]?
                if let extensions = fields.first {
                    guard extensions.tag == DER.Tag.contextConstructed(2), fields.count == 1 else {
                        throw DERError(
                            "TBSRequest: unexpected field after requestList (tag 0x\(DERNode.hex(extensions.tag)))")
                    }
                    let wrapped = try extensions.children()
                    guard wrapped.count == 1 else { throw DERError("requestExtensions [2] holds one SEQUENCE") }
                    for item in try wrapped[0].sequence("requestExtensions") {
                        let (oid, critical, value) = try OCSP.readExtension(item)
                        if oid == OCSP.nonceOID {
                            guard nonce == nil else { throw DERError("the nonce extension appears twice") }
                            let inner = try DERNode.parse(value).octetString("nonce")
                            guard (1...32).contains(inner.count) else {
                                throw DERError("the nonce has \(inner.count) octets; 1 to 32 (RFC 8954 §2.1)")
                            }
                            nonce = value
                        } else if critical {
                            throw DERError("unknown critical request extension \(oid)")
                        }
                    }
                }
                self.init(certIDs: ids, nonce: nonce)
            } catch { throw OCSPError("malformed OCSP request: \(error.message)") }
        }
    }

    /// `OCSPResponseStatus` (RFC 6960 §4.2.1); 4 is not used.
    package enum ResponseStatus: UInt8, Hashable, Sendable {
        case successful = 0
        case malformedRequest = 1
        case internalError = 2
        case tryLater = 3
        case sigRequired = 5
        case unauthorized = 6
    }

    /// `CRLReason` (RFC 5280 §5.3.1); 7 is not used.
    package enum RevocationReason: UInt8, Hashable, Sendable {
        case unspecified = 0
        case keyCompromise = 1
        case cACompromise = 2
        case affiliationChanged = 3
        case superseded = 4
        case cessationOfOperation = 5
        case certificateHold = 6
        case removeFromCRL = 8
        case privilegeWithdrawn = 9
        case aACompromise = 10
    }

    /// `CertStatus` (RFC 6960 §4.2.1).
    package enum CertStatus: Hashable, Sendable {
        case good
        case revoked(time: ASN1Time, reason: RevocationReason?)
        case unknown

        var derEncoded: [UInt8] {
            switch self {
            case .good: return DER.tlv(DER.Tag.contextPrimitive(0), [])
            case .unknown: return DER.tlv(DER.Tag.contextPrimitive(2), [])
            case .revoked(let time, let reason):
                var fields = [time.generalizedTimeDER]
                if let reason { fields.append(DER.contextConstructed(0, DER.tlv(0x0A, [reason.rawValue]))) }
                return DER.tlv(DER.Tag.contextConstructed(1), fields.flatMap { $0 })
            }
        }
    }

    /// One `SingleResponse` (RFC 6960 §4.2.1), without extensions.
    package struct SingleResponse: Hashable, Sendable {
        package var certID: CertID
        package var status: CertStatus
        package var thisUpdate: ASN1Time
        package var nextUpdate: ASN1Time?

        package init(certID: CertID, status: CertStatus, thisUpdate: ASN1Time, nextUpdate: ASN1Time?) {
            self.certID = certID
            self.status = status
            self.thisUpdate = thisUpdate
            self.nextUpdate = nextUpdate
        }

        var derEncoded: [UInt8] {
            var fields = [certID.encoded, status.derEncoded, thisUpdate.generalizedTimeDER]
            if let nextUpdate { fields.append(DER.contextConstructed(0, nextUpdate.generalizedTimeDER)) }
            return DER.sequence(fields)
        }
    }

    /// An `OCSPResponse` without `responseBytes`: every status but `successful` (RFC 6960 §4.2.1).
    package static func unsuccessfulResponse(_ status: ResponseStatus) -> [UInt8] {
        precondition(status != .successful, "a successful response carries a BasicOCSPResponse")
        return DER.sequence([DER.tlv(0x0A, [status.rawValue])])
    }

    /// A successful `OCSPResponse` carrying a `BasicOCSPResponse` (RFC 6960 §4.2.1): version v1 (omitted),
    /// `responderID` `byKey` (the SHA-1 of `signer`'s public key, §4.2.1), `producedAt`, the single responses in
    /// order, the nonce echoed when given (§4.4.1), signed ecdsa-with-SHA256 by `signer` (RFC 6979 nonces, so the
    /// bytes depend only on the inputs), no `certs` (the signer is the issuer the client already holds, §4.2.2.2).
    package static func basicResponse(
        producedAt: ASN1Time, responses: [SingleResponse], nonce: [UInt8]?, signer: P256.PrivateKey
    ) -> [UInt8] {
        var data = [
            DER.contextConstructed(2, DER.octetString(SHA1.hash(signer.publicKey.x963Representation))),
            producedAt.generalizedTimeDER, DER.sequence(responses.map(\.derEncoded)),
        ]
        if let nonce { data.append(DER.contextConstructed(1, DER.sequence([extensionDER(nonceOID, nonce)]))) }
        let tbs = DER.sequence(data)
        let basic = DER.sequence([
            tbs, X509Certificate.signatureAlgorithm, DER.bitString(signer.signature(for: tbs).derRepresentation),
        ])
        return DER.sequence([
            DER.tlv(0x0A, [ResponseStatus.successful.rawValue]),
            DER.contextConstructed(
                0, DER.sequence([DER.objectIdentifier(basicResponseType), DER.octetString(basic)])),
        ])
    }

    static func extensionDER(_ oid: DER.ObjectIdentifier, _ value: [UInt8]) -> [UInt8] {
        DER.sequence([DER.objectIdentifier(oid), DER.octetString(value)])
    }

    static func readExtension(_ node: DERNode) throws(DERError) -> (DER.ObjectIdentifier, Bool, [UInt8]) {
        let fields = try node.sequence("Extension")
        guard fields.count == 2 || fields.count == 3 else {
            throw DERError("Extension has 2 or 3 fields, found \(fields.count)")
        }
        let oid = try fields[0].objectIdentifier("extnID")
        var critical = false
        if fields.count == 3 {
            critical = try fields[1].boolean("critical")
            guard critical else { throw DERError("extension \(oid): critical FALSE must be omitted (X.690 §11.5)") }
        }
        return (oid, critical, try fields[fields.count - 1].octetString("extnValue"))
    }

    /// A response read back (for tests): its status and, when successful, the `BasicOCSPResponse`'s fields.
    package struct Response: Sendable {
        package var status: ResponseStatus
        /// The `byKey` responder ID; `nil` for `byName` or an unsuccessful response.
        package var responderKeyHash: [UInt8]?
        /// `producedAt` as written (`YYYYMMDDHHMMSSZ`).
        package var producedAt: String?
        /// Each single response: its CertID, status (`good`, `revoked` or `unknown`), thisUpdate and nextUpdate text.
        package var responses: [(certID: CertID, status: String, thisUpdate: String, nextUpdate: String?)] = []
        package var nonce: [UInt8]?
        var tbsResponseData: [UInt8] = []
        var signature: ECDSASignature?

        /// Whether `key` signed the `tbsResponseData` (false for an unsuccessful response).
        package func isSigned(by key: P256.PublicKey) -> Bool {
            guard let signature else { return false }
            return key.isValidSignature(signature, for: tbsResponseData)
        }

        package init(derRepresentation der: [UInt8]) throws(OCSPError) {
            do throws(DERError) {
                let outer = try DERNode.parse(der).sequence("OCSPResponse")
                guard let first = outer.first, first.tag == 0x0A, first.contents.count == 1,
                    let status = ResponseStatus(rawValue: first.contents[first.contents.startIndex])
                else { throw DERError("OCSPResponse: responseStatus is not a known ENUMERATED") }
                self.status = status
                guard status == .successful else {
                    guard outer.count == 1 else { throw DERError("an unsuccessful response carries no responseBytes") }
                    return
                }
                guard outer.count == 2 else { throw DERError("a successful response carries responseBytes") }
                let bytes = try outer[1].expect(DER.Tag.contextConstructed(0), "responseBytes").children()
                guard bytes.count == 1 else { throw DERError("responseBytes [0] holds one SEQUENCE") }
                let typed = try bytes[0].sequence("ResponseBytes")
                guard typed.count == 2, try typed[0].objectIdentifier("responseType") == basicResponseType else {
                    throw DERError("responseType is not id-pkix-ocsp-basic")
                }
                let basic = try DERNode.parse(try typed[1].octetString("response")).sequence("BasicOCSPResponse")
                guard basic.count == 3 || basic.count == 4 else {
                    throw DERError("BasicOCSPResponse has 3 or 4 fields")
                }
                try X509Certificate.checkSignatureAlgorithm(basic[1], "BasicOCSPResponse.signatureAlgorithm")
                do { signature = try ECDSASignature(derRepresentation: try basic[2].bitStringBytes("signature")) } catch
                {
                    throw DERError("signature is not a DER ECDSA signature")
                }
                tbsResponseData = Array(basic[0].encoded)
                var data = try basic[0].sequence("ResponseData")[...]
                if data.first?.tag == DER.Tag.contextConstructed(0) { data = data.dropFirst() }
                guard data.count >= 3 else { throw DERError("ResponseData: fields are missing") }
                if data.first!.tag == DER.Tag.contextConstructed(2) {
                    let inner = try data.first!.children()
                    guard inner.count == 1 else { throw DERError("responderID byKey holds one OCTET STRING") }
                    responderKeyHash = try inner[0].octetString("byKey")
                }
                producedAt = try Self.generalizedTime(data[data.startIndex + 1], "producedAt")
                for single in try data[data.startIndex + 2].sequence("responses") {
                    let fields = try single.sequence("SingleResponse")
                    guard fields.count >= 3 else { throw DERError("SingleResponse: fields are missing") }
                    let kind: String
                    switch fields[1].tag {
                    case DER.Tag.contextPrimitive(0): kind = "good"
                    case DER.Tag.contextConstructed(1): kind = "revoked"
                    case DER.Tag.contextPrimitive(2): kind = "unknown"
                    default: throw DERError("certStatus has tag 0x\(DERNode.hex(fields[1].tag))")
                    }
                    var next: String?
                    if fields.count > 3, fields[3].tag == DER.Tag.contextConstructed(0) {
                        let inner = try fields[3].children()
                        guard inner.count == 1 else { throw DERError("nextUpdate [0] holds one GeneralizedTime") }
                        next = try Self.generalizedTime(inner[0], "nextUpdate")
                    }
                    responses.append(
                        (try CertID(node: fields[0]), kind, try Self.generalizedTime(fields[2], "thisUpdate"), next))
                }
                if data.count == 4 {
                    let wrapped = try data[data.startIndex + 3].expect(
                        DER.Tag.contextConstructed(1), "responseExtensions"
                    )
                    .children()
                    for item in try wrapped[0].sequence("responseExtensions") {
                        let (oid, _, value) = try OCSP.readExtension(item)
                        if oid == nonceOID { nonce = value }
                    }
                }
            } catch { throw OCSPError("OCSP response: \(error.message)") }
        }

        static func generalizedTime(_ node: DERNode, _ what: String) throws(DERError) -> String {
            try node.expect(DER.Tag.generalizedTime, what)
            return String(decoding: node.contents, as: UTF8.self)
        }
    }
}

extension ASN1Time {
    /// GeneralizedTime `YYYYMMDDHHMMSSZ` whatever the year: how OCSP writes every time (RFC 6960 §4.2.2.1 with RFC
    /// 5280 §4.1.2.5.2's form).
    package var generalizedTimeDER: [UInt8] {
        let text = [month, day, hour, minute, second].map { Self.pad($0, 2) }.joined()
        return DER.tlv(DER.Tag.generalizedTime, Array((Self.pad(year, 4) + text + "Z").utf8))
    }
}

/// The Authority Information Access extension with an OCSP responder (RFC 5280 §4.2.2.1).
extension X509Certificate.Extension {
    /// `id-pe-authorityInfoAccess`.
    static let authorityInformationAccessOID = DER.ObjectIdentifier("1.3.6.1.5.5.7.1.1")!
    /// `id-ad-ocsp`: the access method naming an OCSP responder.
    static let ocspAccessMethod = DER.ObjectIdentifier("1.3.6.1.5.5.7.48.1")!

    /// AuthorityInfoAccess with one `id-ad-ocsp` entry whose location is the URI `url` (`[6] IA5String`), not
    /// critical (RFC 5280 §4.2.2.1 requires that). `url` must be ASCII.
    package static func authorityInformationAccess(ocspURL url: String) -> Self {
        precondition(url.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "an OCSP URL is visible ASCII")
        return Self(
            oid: authorityInformationAccessOID, isCritical: false,
            value: DER.sequence([
                DER.sequence([
                    DER.objectIdentifier(ocspAccessMethod), DER.tlv(DER.Tag.contextPrimitive(6), Array(url.utf8)),
                ])
            ]))
    }
}

extension X509Certificate {
    /// The OCSP responder URIs of the Authority Information Access extension, in order; empty when it is absent.
    package func ocspURLs() throws(CertificateError) -> [String] {
        guard let ext = `extension`(Extension.authorityInformationAccessOID) else { return [] }
        do throws(DERError) {
            var urls: [String] = []
            for entry in try DERNode.parse(ext.value).sequence("AuthorityInfoAccessSyntax") {
                let fields = try entry.sequence("AccessDescription")
                guard fields.count == 2 else { throw DERError("AccessDescription has a method and a location") }
                if try fields[0].objectIdentifier("accessMethod") == Extension.ocspAccessMethod,
                    fields[1].tag == DER.Tag.contextPrimitive(6)
                {
                    urls.append(String(decoding: fields[1].contents, as: UTF8.self))
                }
            }
            return urls
        } catch { throw CertificateError(error.message) }
    }
}

/// An OCSP message that cannot be read.
package struct OCSPError: Error, Hashable, Sendable, CustomStringConvertible {
    package var message: String
    init(_ message: String) { self.message = message }
    package var description: String { message }
}
