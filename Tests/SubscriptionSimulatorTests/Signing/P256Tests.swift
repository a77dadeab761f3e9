import Testing

@testable import SubscriptionSimulator

/// RFC 6979 appendix A.2.5: ECDSA on P-256 with SHA-256 and deterministic nonces.
@Suite struct RFC6979Tests {
    static let privateKey = Hex.literal("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721")
    static let publicKey = Hex.literal(
        "04" + "60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6"
            + "7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299")

    @Test func publicKeyOfTheA25PrivateKey() throws {
        let key = try P256.PrivateKey(rawRepresentation: Self.privateKey)
        #expect(key.publicKey.x963Representation == Self.publicKey)
        #expect(key.rawRepresentation == Self.privateKey)
    }

    @Test(arguments: [
        (
            "sample",
            "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716"
                + "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"
        ),
        (
            "test",
            "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367"
                + "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083"
        ),
    ])
    func sha256SignatureByteForByte(message: String, rs: String) throws {
        let key = try P256.PrivateKey(rawRepresentation: Self.privateKey)
        let signature = key.signature(for: Array(message.utf8))
        #expect(signature.rawRepresentation == Hex.literal(rs))
        #expect(key.publicKey.isValidSignature(signature, for: Array(message.utf8)))
        let viaDigest = key.signature(forDigest: SHA256.hash(Array(message.utf8)))
        #expect(viaDigest == signature)
    }
}
