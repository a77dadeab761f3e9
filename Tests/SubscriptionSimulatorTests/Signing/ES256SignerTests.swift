import SimctlCrypto
import Testing

@testable import SubscriptionSimulator

@Suite struct ES256SignerTests {
    let signer = ES256Signer()
    let payload: JSONValue = .object(["bundleId": .string("com.example"), "signedDate": .integer(1_772_355_600_000)])

    func parts(_ jws: String) -> [String] {
        jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func theHeaderIsES256WithTheChainInX5COrder() throws {
        let header = try JWS.decodeHeader(JWS.compact(payload: payload, signer: signer))
        #expect(header.value(at: "alg") == .string("ES256"))
        let expected = SigningChain.default.certificates.map {
            JSONValue.string(Base64URL.encodeStandard($0.derRepresentation))
        }
        #expect(header.value(at: "x5c") == .array(expected))
        #expect(signer.encodedHeader == Base64URL.encode(Array(CanonicalJSON.string(signer.header).utf8)))
    }

    @Test func theSignatureIsRawRSOverTheSigningInputByTheLeafKey() throws {
        let p = parts(JWS.compact(payload: payload, signer: signer))
        let signature = try #require(Base64URL.decode(p[2]))
        #expect(signature.count == 64)
        let valid = SigningChain.default.leaf.x509.publicKey.isValidSignature(
            try ECDSASignature(rawRepresentation: signature), for: Array((p[0] + "." + p[1]).utf8))
        #expect(valid)
    }

    /// The signer hashes only what follows its header (the SHA-256 state after `header.` is kept), yet signs
    /// exactly what the leaf key signs over the whole input; an input with another header is hashed whole.
    @Test func headerMidstateSignsAsTheWholeInput() {
        let inputs = [
            signer.encodedHeader + "." + Base64URL.encode(Array(CanonicalJSON.string(payload).utf8)),
            signer.encodedHeader + ".",
            "eyJhbGciOiJFUzI1NiJ9." + Base64URL.encode(Array(CanonicalJSON.string(payload).utf8)),
            String(signer.encodedHeader.dropLast()),
        ]
        for input in inputs {
            let bytes = Array(input.utf8)
            let expected = SigningChain.default.leafKey.signature(for: bytes).rawRepresentation
            #expect(signer.signature(for: bytes) == expected)
            #expect(bytes.withUnsafeBytes { signer.signature(forSigningInputIn: $0) } == expected)
        }
    }

    @Test func signingIsDeterministic() {
        #expect(JWS.compact(payload: payload, signer: signer) == JWS.compact(payload: payload, signer: ES256Signer()))
    }

    @Test(arguments: SimulatedEnvironment.allCases)
    func eachEnvironmentHasItsDefaultSigner(environment: SimulatedEnvironment) {
        let isES256 = environment.defaultSigner is ES256Signer
        #expect(isES256 == (environment == .sandbox || environment == .production))
    }

    @Test func aChosenChainSignsInstead() throws {
        let chain = SigningChain.generate(caSeed: "team").chain
        let header = try JWS.decodeHeader(JWS.compact(payload: payload, signer: ES256Signer(chain: chain)))
        #expect(header.value(at: "x5c.2") == .string(Base64URL.encodeStandard(chain.root.derRepresentation)))
    }
}
