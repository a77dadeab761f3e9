import SimctlCrypto

/// Notifications made to fail verification, one per rejection path of a server's verifier, each with the
/// `VerificationStatus` Apple's `SignedDataVerifier` returns for it (checked in CI with Apple's Python library,
/// `Tests/Conformance/verify_signatures.py`). A team feeds them to its own endpoint to see each one refused.
///
/// All are built from one notification and one chain: a correctly signed `valid` control, then one change each.
/// The verifier settings they assume are the ones of the control: the chain's root, the app's bundleId,
/// appAppleId and environment, online checks off.
public enum NegativeFixtures {
    /// One fixture: file name, what it tests, the status Apple's library reports, and the POST body.
    public struct Fixture: Hashable, Sendable {
        public var name: String
        public var purpose: String
        /// Apple's `VerificationStatus` name (`OK` for the control).
        public var expectedStatus: String
        public var postBody: String
    }

    /// The bundle id the `wrong-bundle-id` fixture claims.
    public static let wrongBundleId = "com.example.simctl.wrong-bundle"
    /// OIDs the wrong-OID fixtures carry instead of Apple's markers (the next arc after each).
    package static let wrongLeafMarker = DER.ObjectIdentifier("1.2.840.113635.100.6.11.2")!
    package static let wrongIntermediateMarker = DER.ObjectIdentifier("1.2.840.113635.100.6.2.2")!

    /// The fixtures for `notification` of `app` (whose environment must be `Sandbox` or `Production`: Apple's
    /// libraries verify nothing in the other two), signed under the chain of `caSeed`.
    public static func make(
        for notification: SentNotification, app: AppConfiguration, caSeed: String = SigningChain.defaultCASeed
    ) -> [Fixture] {
        let generated = SigningChain.generate(caSeed: caSeed)
        let signer = ES256Signer(chain: generated.chain)
        func body(_ app: AppConfiguration, _ signer: any PayloadSigner) -> String {
            NotificationEncoder(app: app, signer: signer).encode(notification).postBody
        }
        let valid = body(app, signer)
        var fixtures = [
            Fixture(
                name: "valid", purpose: "control: correctly signed; must verify", expectedStatus: "OK", postBody: valid)
        ]
        fixtures.append(
            Fixture(
                name: "altered-payload",
                purpose:
                    "the payload was changed after signing (signedDate plus one millisecond); the signature no longer matches",
                expectedStatus: "VERIFICATION_FAILURE", postBody: altered(valid)))
        let impostor = P256.PrivateKey(derivedFrom: Array(caSeed.utf8), label: "simctl impostor")
        fixtures.append(
            Fixture(
                name: "signed-by-another-key",
                purpose: "the chain is right but the signature was made by a key that is not the leaf's",
                expectedStatus: "VERIFICATION_FAILURE",
                postBody: body(
                    app, ForeignKeySigner(header: signer.header, encodedHeader: signer.encodedHeader, key: impostor))))
        let wrongLeaf = SigningChain.generate(
            caSeed: caSeed, leafNotAfter: nil, leafMarker: wrongLeafMarker,
            intermediateMarker: SigningChain.appleIntermediateMarker
        ).chain
        fixtures.append(
            Fixture(
                name: "wrong-leaf-oid",
                purpose: "the leaf carries \(wrongLeafMarker) instead of Apple's \(SigningChain.appleLeafMarker)",
                expectedStatus: "VERIFICATION_FAILURE", postBody: body(app, ES256Signer(chain: wrongLeaf))))
        let wrongIntermediate = SigningChain.generate(
            caSeed: caSeed, leafNotAfter: nil, leafMarker: SigningChain.appleLeafMarker,
            intermediateMarker: wrongIntermediateMarker
        ).chain
        fixtures.append(
            Fixture(
                name: "wrong-intermediate-oid",
                purpose:
                    "the intermediate carries \(wrongIntermediateMarker) instead of Apple's \(SigningChain.appleIntermediateMarker)",
                expectedStatus: "VERIFICATION_FAILURE", postBody: body(app, ES256Signer(chain: wrongIntermediate))))
        let expiry = notification.instant.adding(milliseconds: -86_400_000)
        let expired = SigningChain.generate(caSeed: caSeed, leafNotAfter: expiry).chain
        fixtures.append(
            Fixture(
                name: "expired-leaf",
                purpose: "the leaf certificate expired (\(expiry)) one day before the payload's signedDate",
                expectedStatus: "VERIFICATION_FAILURE", postBody: body(app, ES256Signer(chain: expired))))
        let stranger = SigningChain.generate(caSeed: caSeed + " (untrusted)").chain
        fixtures.append(
            Fixture(
                name: "untrusted-root",
                purpose: "a well-formed chain that ends at a root the verifier was not given",
                expectedStatus: "VERIFICATION_FAILURE", postBody: body(app, ES256Signer(chain: stranger))))
        fixtures.append(
            Fixture(
                name: "one-certificate-chain",
                purpose: "x5c holds only the leaf, as Xcode's StoreKit Testing payloads do",
                expectedStatus: "INVALID_CHAIN_LENGTH",
                postBody: body(app, LeafOnlySigner(chain: generated.chain))))
        var otherBundle = app
        otherBundle.bundleId = wrongBundleId
        fixtures.append(
            Fixture(
                name: "wrong-bundle-id",
                purpose: "correctly signed, but for the bundle id \(wrongBundleId)",
                expectedStatus: "INVALID_APP_IDENTIFIER", postBody: body(otherBundle, signer)))
        var otherEnvironment = app
        otherEnvironment.environment = app.environment == .production ? .sandbox : .production
        // A Sandbox payload has no data.appAppleId, and a Production verifier compares the app identifier before
        // the environment: Apple's library then reports INVALID_APP_IDENTIFIER (checked in CI).
        let sandboxToProduction = app.environment == .production
        fixtures.append(
            Fixture(
                name: "wrong-environment",
                purpose: "correctly signed, but claims the environment \(otherEnvironment.environment.rawValue)"
                    + (sandboxToProduction
                        ? " (a Sandbox payload has no data.appAppleId, which a Production verifier checks first)" : ""),
                expectedStatus: sandboxToProduction ? "INVALID_APP_IDENTIFIER" : "INVALID_ENVIRONMENT",
                postBody: body(otherEnvironment, signer)))
        return fixtures
    }

    /// `manifest.json`: the verifier settings and, per fixture, its file, purpose and expected status.
    public static func manifest(_ fixtures: [Fixture], app: AppConfiguration, caSeed: String) -> JSONValue {
        var verifier = JSONObjectBuilder()
        verifier.set("rootCertificate", "root.der")
        verifier.set("environment", app.environment.rawValue)
        verifier.set("bundleId", app.bundleId)
        verifier.set("appAppleId", app.appAppleId)
        verifier.set("enableOnlineChecks", false)
        return .object([
            "caSeed": .string(caSeed),
            "verifier": verifier.value,
            "fixtures": .array(
                fixtures.map {
                    .object([
                        "file": .string($0.name + ".json"), "purpose": .string($0.purpose),
                        "expectedStatus": .string($0.expectedStatus),
                    ])
                }),
        ])
    }

    /// The POST body with the payload's `signedDate` moved by one millisecond, header and signature kept.
    static func altered(_ postBody: String) -> String {
        guard case .object(let body)? = try? CanonicalJSON.parse(postBody),
            case .string(let jws)? = body["signedPayload"]
        else { preconditionFailure("the encoder's POST body is {\"signedPayload\": JWS}") }
        let parts = jws.split(separator: ".").map(String.init)
        guard case .object(var payload)? = try? JWS.decodePayload(jws), case .integer(let date)? = payload["signedDate"]
        else { preconditionFailure("a notification payload has an integer signedDate") }
        payload["signedDate"] = .integer(date + 1)
        let changed = Base64URL.encode(Array(CanonicalJSON.string(.object(payload)).utf8))
        return CanonicalJSON.string(.object(["signedPayload": .string(parts[0] + "." + changed + "." + parts[2])]))
    }

    /// Apple's header, a signature by some other key.
    struct ForeignKeySigner: PayloadSigner {
        var header: JSONValue
        var encodedHeader: String
        var key: P256.PrivateKey
        func signature(for signingInput: [UInt8]) -> [UInt8] { key.signature(for: signingInput).rawRepresentation }
    }

    /// A correct signature, but `x5c` holds the leaf alone.
    struct LeafOnlySigner: PayloadSigner {
        var chain: SigningChain
        var header: JSONValue {
            .object([
                "alg": .string("ES256"),
                "x5c": .array([.string(Base64URL.encodeStandard(chain.leaf.derRepresentation))]),
            ])
        }
        func signature(for signingInput: [UInt8]) -> [UInt8] {
            chain.leafKey.signature(for: signingInput).rawRepresentation
        }
    }
}
