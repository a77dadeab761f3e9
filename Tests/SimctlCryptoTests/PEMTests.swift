import Testing
@testable import SimctlCrypto

/// One P-256 key written by OpenSSL 3.0 (`openssl ecparam -name prime256v1 -genkey`, then `openssl pkcs8 -topk8`,
/// `openssl pkey -pubout`), and a self-signed CA certificate OpenSSL made with it: an independent implementation's
/// output for the readers to accept. A throwaway key, test data only.
enum OpenSSLSamples {
    static let scalar = bytes("72f4164143d26b9e66d8b4da71334197f4956c10db2cf3f1e7c2aaaa18cfb6a3")
    static let sec1 = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIHL0FkFD0mueZti02nEzQZf0lWwQ2yzz8efCqqoYz7ajoAoGCCqGSM49
        AwEHoUQDQgAE3WHtmCPX4KDIXRJfHiXwYqm6SvNXmJlhBqUYSe2wPPAsxXrW6hjY
        MiO7s3HVsSUfQDZpVqdyKFWvVe6pPwrPfA==
        -----END EC PRIVATE KEY-----

        """
    static let pkcs8 = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgcvQWQUPSa55m2LTa
        cTNBl/SVbBDbLPPx58KqqhjPtqOhRANCAATdYe2YI9fgoMhdEl8eJfBiqbpK81eY
        mWEGpRhJ7bA88CzFetbqGNgyI7uzcdWxJR9ANmlWp3IoVa9V7qk/Cs98
        -----END PRIVATE KEY-----

        """
    static let publicKey = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE3WHtmCPX4KDIXRJfHiXwYqm6SvNX
        mJlhBqUYSe2wPPAsxXrW6hjYMiO7s3HVsSUfQDZpVqdyKFWvVe6pPwrPfA==
        -----END PUBLIC KEY-----

        """
    /// `openssl req -new -x509 -key sec1.pem -subj "/C=US/O=Example/CN=OpenSSL Test CA" -set_serial 0x1234
    /// -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign -sha256`.
    static let certificate = """
        -----BEGIN CERTIFICATE-----
        MIIBxTCCAWugAwIBAgICEjQwCgYIKoZIzj0EAwIwOTELMAkGA1UEBhMCVVMxEDAO
        BgNVBAoMB0V4YW1wbGUxGDAWBgNVBAMMD09wZW5TU0wgVGVzdCBDQTAeFw0yNjEx
        MjMwMzM1NTZaFw0zNjExMjAwMzM1NTZaMDkxCzAJBgNVBAYTAlVTMRAwDgYDVQQK
        DAdFeGFtcGxlMRgwFgYDVQQDDA9PcGVuU1NMIFRlc3QgQ0EwWTATBgcqhkjOPQIB
        BggqhkjOPQMBBwNCAATdYe2YI9fgoMhdEl8eJfBiqbpK81eYmWEGpRhJ7bA88CzF
        etbqGNgyI7uzcdWxJR9ANmlWp3IoVa9V7qk/Cs98o2MwYTAdBgNVHQ4EFgQUG7E5
        kceQ5X+hn0/LSKoR70xm+fwwHwYDVR0jBBgwFoAUG7E5kceQ5X+hn0/LSKoR70xm
        +fwwDwYDVR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAQYwCgYIKoZIzj0EAwID
        SAAwRQIhANsIJ/XhgiVavHZGIdHDVfGX3YMLAJCYj/0GmYROkACrAiApPcSNVFeL
        jWlRxefp8OUHvhuFIPP57iqau4KEGVTSnA==
        -----END CERTIFICATE-----

        """
}

@Suite struct PEMTests {
    @Test func encodingWrapsBase64At64Characters() {
        let text = PEM.encode(label: "CERTIFICATE", derBytes: [UInt8](repeating: 0xAB, count: 100))
        let lines = text.split(separator: "\n")
        #expect(lines.first == "-----BEGIN CERTIFICATE-----" && lines.last == "-----END CERTIFICATE-----")
        #expect(lines.dropFirst().dropLast().map(\.count) == [64, 64, 8])
    }

    @Test func blocksRoundTrip() throws {
        var random = TestRandom(seed: 5)
        for length in [0, 1, 2, 3, 47, 48, 49, 300] {
            let der = (0..<length).map { _ in UInt8(random.nextInt(in: 0...255)) }
            let block = try PEM.decodeSingle(PEM.encode(label: "PUBLIC KEY", derBytes: der), labels: ["PUBLIC KEY"])
            #expect(block.derBytes == der, "length \(length)")
        }
    }

    @Test func textAroundBlocksAndCRLFAreAccepted() throws {
        let text =
            "subject=CN=x\r\n"
            + PEM.encode(label: "A", derBytes: [1, 2, 3]).replacingOccurrences(
                of: "\n", with: "\r\n") + "trailing words\n" + PEM.encode(label: "B", derBytes: [4])
        #expect(try PEM.decodeAll(text).map(\.label) == ["A", "B"])
    }

    @Test(arguments: [
        "-----BEGIN A-----\nAQID\n", "-----BEGIN A-----\nAQID\n-----END B-----\n", "-----END A-----\n",
        "-----BEGIN A-----\nAQI\n-----END A-----\n", "-----BEGIN A-----\nAQ=D\n-----END A-----\n",
        "-----BEGIN A-----\nAR==\n-----END A-----\n", "-----BEGIN A-----\nA*ID\n-----END A-----\n",
    ])
    func malformedPEMIsRefused(text: String) {
        #expect(throws: PEMError.self) { try PEM.decodeAll(text) }
    }

    @Test func aBlockWithTheWrongLabelIsRefused() {
        #expect(throws: PEMError.self) { try PEM.decodeSingle(OpenSSLSamples.publicKey, labels: ["CERTIFICATE"]) }
    }
}

@Suite struct ECKeyEncodingTests {
    @Test func opensslPrivateKeysAreRead() throws {
        #expect(try ECKeyEncoding.privateKey(pem: OpenSSLSamples.sec1).rawRepresentation == OpenSSLSamples.scalar)
        #expect(try ECKeyEncoding.privateKey(pem: OpenSSLSamples.pkcs8).rawRepresentation == OpenSSLSamples.scalar)
    }

    @Test func privateKeysAreWrittenAsOpenSSLWritesThem() throws {
        let key = try P256.PrivateKey(rawRepresentation: OpenSSLSamples.scalar)
        #expect(ECKeyEncoding.sec1PEM(key) == OpenSSLSamples.sec1)
        #expect(ECKeyEncoding.pkcs8PEM(key) == OpenSSLSamples.pkcs8)
        #expect(ECKeyEncoding.publicKeyPEM(key.publicKey) == OpenSSLSamples.publicKey)
    }

    @Test func publicKeysRoundTrip() throws {
        let key = P256.PrivateKey(derivedFrom: [1, 2, 3], label: "test").publicKey
        #expect(try ECKeyEncoding.publicKey(subjectPublicKeyInfoDER: ECKeyEncoding.subjectPublicKeyInfo(key)) == key)
    }

    @Test func aSEC1KeyWhosePublicKeyDoesNotMatchIsRefused() throws {
        let key = try P256.PrivateKey(rawRepresentation: OpenSSLSamples.scalar)
        let other = P256.PrivateKey(derivedFrom: [9], label: "other").publicKey
        let der = DER.sequence([
            DER.integer(1), DER.octetString(key.rawRepresentation),
            DER.contextConstructed(1, DER.bitString(other.x963Representation)),
        ])
        #expect(throws: KeyEncodingError.self) { try ECKeyEncoding.privateKey(sec1: der) }
    }

    @Test func keysOnOtherCurvesAreRefused() throws {
        let secp384r1 = try #require(DER.ObjectIdentifier("1.3.132.0.34"))
        let spki = DER.sequence([
            DER.sequence([DER.objectIdentifier(ECKeyEncoding.ecPublicKey), DER.objectIdentifier(secp384r1)]),
            DER.bitString([4] + [UInt8](repeating: 1, count: 96)),
        ])
        #expect(throws: KeyEncodingError.self) { try ECKeyEncoding.publicKey(subjectPublicKeyInfoDER: spki) }
    }
}
