import Testing

@testable import SimctlCrypto

/// RFC 4231 section 4: HMAC-SHA-256 test cases 1 to 7 (case 5's output truncated to 128 bits, as the RFC gives it).
@Suite struct HMACSHA256Tests {
    struct Case: Sendable, CustomStringConvertible {
        let number: Int
        let key: [UInt8]
        let data: [UInt8]
        let mac: String
        var description: String { "RFC 4231 test case \(number)" }
    }

    static let cases: [Case] = [
        Case(
            number: 1, key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
            mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Case(
            number: 2, key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
            mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Case(
            number: 3, key: [UInt8](repeating: 0xaa, count: 20), data: [UInt8](repeating: 0xdd, count: 50),
            mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Case(
            number: 4, key: (1...25).map { UInt8($0) }, data: [UInt8](repeating: 0xcd, count: 50),
            mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Case(
            number: 5, key: [UInt8](repeating: 0x0c, count: 20), data: Array("Test With Truncation".utf8),
            mac: "a3b6167473100ee06e0c796c2955552b"),
        Case(
            number: 6, key: [UInt8](repeating: 0xaa, count: 131),
            data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Case(
            number: 7, key: [UInt8](repeating: 0xaa, count: 131),
            data: Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. The key needs "
                    + "to be hashed before being used by the HMAC algorithm.").utf8),
            mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: cases)
    func rfc4231TestCase(_ testCase: Case) {
        let mac = HMACSHA256.authenticationCode(for: testCase.data, key: testCase.key)
        #expect(mac.count == 32)
        // Case 5 lists only the leftmost 128 bits; comparing a prefix of the right length covers every case.
        #expect(Hex.string(mac).hasPrefix(testCase.mac) && testCase.mac.count >= 32)
    }
}
