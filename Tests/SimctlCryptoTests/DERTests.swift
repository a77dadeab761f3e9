import Testing
@testable import SimctlCrypto

/// Hex text to bytes, for DER written out by hand.
func bytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

@Suite struct DEREncodingTests {
    @Test func lengthsUseTheShortestForm() {
        #expect(DER.tlv(0x04, [UInt8](repeating: 0, count: 127)).prefix(2) == [0x04, 0x7F])
        #expect(DER.tlv(0x04, [UInt8](repeating: 0, count: 128)).prefix(3) == [0x04, 0x81, 0x80])
        #expect(DER.tlv(0x04, [UInt8](repeating: 0, count: 256)).prefix(4) == [0x04, 0x82, 0x01, 0x00])
    }

    @Test(arguments: [
        (Int64(0), "020100"), (127, "02017F"), (128, "02020080"), (256, "02020100"), (-1, "0201FF"),
        (-128, "020180"), (-129, "0202FF7F"), (Int64.max, "02087FFFFFFFFFFFFFFF"),
    ])
    func integersAreMinimalTwosComplement(value: Int64, hex: String) throws {
        #expect(DER.integer(value) == bytes(hex))
        #expect(try DERNode.parse(bytes(hex)).int64("x") == value)
    }

    @Test func integersRoundTripOverRandomValues() throws {
        var random = TestRandom(seed: 11)
        for _ in 0..<2_000 {
            let value = Int64(bitPattern: random.next()) >> Int64(random.nextInt(in: 0...63))
            #expect(try DERNode.parse(DER.integer(value)).int64("x") == value, "seed 11, value \(value)")
        }
    }

    @Test func unsignedIntegersGetASignOctetWhenTheTopBitIsSet() throws {
        #expect(DER.unsignedInteger([0x80, 0x01]) == bytes("0203008001"))
        #expect(DER.unsignedInteger([0x00, 0x00, 0x7F]) == bytes("02017F"))
        #expect(try DERNode.parse(bytes("0203008001")).unsignedIntegerBytes("x") == [0x80, 0x01])
    }

    @Test func objectIdentifiersEncodeAsX690Says() throws {
        // Apple's leaf marker and ecdsa-with-SHA256, as OpenSSL encodes them.
        let leaf = try #require(DER.ObjectIdentifier("1.2.840.113635.100.6.11.1"))
        #expect(DER.objectIdentifier(leaf) == bytes("060A 2A864886F763 6406 0B01"))
        let ecdsa = try #require(DER.ObjectIdentifier("1.2.840.10045.4.3.2"))
        #expect(DER.objectIdentifier(ecdsa) == bytes("06082A8648CE3D040302"))
        #expect(try DERNode.parse(DER.objectIdentifier(leaf)).objectIdentifier("x") == leaf)
        #expect(try DERNode.parse(bytes("0603883703")).objectIdentifier("x").description == "2.999.3")
    }

    @Test(arguments: ["", "1", "3.1", "1.40", "1..2", "1.2.a", "1.2.18446744073709551616"])
    func malformedDottedObjectIdentifiersAreRefused(text: String) {
        #expect(DER.ObjectIdentifier(text) == nil)
    }

    @Test func namedBitsDropTrailingZeroBits() throws {
        // keyCertSign and cRLSign: bits 5 and 6, so one unused bit (RFC 5280's usual 03 02 01 06).
        #expect(DER.namedBits([5, 6]) == bytes("03020106"))
        #expect(DER.namedBits([0]) == bytes("03020780"))
        #expect(try DERNode.parse(bytes("03020106")).namedBits("x") == [5, 6])
    }

    @Test func setOfIsSortedByEncoding() {
        #expect(DER.set([bytes("0201 02"), bytes("0201 01")]) == bytes("3106 020101 020102"))
    }

    @Test func printableStringCharacterSet() {
        #expect(DER.isPrintable("Apple Inc. (Test) 1+2=3?"))
        #expect(!DER.isPrintable("a_b"))
        #expect(!DER.isPrintable("é"))
    }
}

@Suite struct DERStrictDecodingTests {
    /// Each input breaks one DER rule; the decoder must refuse it and say which.
    @Test(arguments: [
        ("3080 0500 0000", "indefinite"),
        ("0481 05 0102030405", "short form"),
        ("0482 0080" + String(repeating: "00", count: 128), "leading zero"),
        ("0485 0100000000", "too large"),
        ("0405 0102", "claims 5 bytes"),
        ("0500 00", "follow"),
        ("1F22 00", "high-tag-number"),
        ("04", "length"),
    ])
    func malformedTLVsAreRefused(hex: String, message: String) {
        #expect {
            try DERNode.parse(bytes(hex))
        } throws: { error in
            (error as? DERError)?.message.contains(message) == true
        }
    }

    @Test(arguments: ["020200 01", "0202FF 80", "0200"])
    func nonMinimalOrEmptyIntegersAreRefused(hex: String) {
        #expect(throws: DERError.self) { try DERNode.parse(bytes(hex)).integerBytes("x") }
    }

    @Test func booleansAreOnlyZeroOrFF() throws {
        #expect(try DERNode.parse(bytes("0101FF")).boolean("x"))
        #expect(try !DERNode.parse(bytes("010100")).boolean("x"))
        #expect(throws: DERError.self) { try DERNode.parse(bytes("010101")).boolean("x") }
        #expect(throws: DERError.self) { try DERNode.parse(bytes("0102FFFF")).boolean("x") }
    }

    @Test func nullHasNoContents() throws {
        try DERNode.parse(bytes("0500")).null("x")
        #expect(throws: DERError.self) { try DERNode.parse(bytes("050100")).null("x") }
    }

    @Test(arguments: ["0302 0181", "0302 0800", "0301 01", "0300"])
    func bitStringsWithBadPaddingAreRefused(hex: String) {
        #expect(throws: DERError.self) { try DERNode.parse(bytes(hex)).bitString("x") }
    }

    @Test func namedBitStringsMustNotEndInZeroBits() {
        #expect(throws: DERError.self) { try DERNode.parse(bytes("03020006")).namedBits("x") }
    }

    @Test(arguments: ["0603 2A8001", "0602 2A86", "0600"])
    func objectIdentifiersWithNonMinimalOrCutArcsAreRefused(hex: String) {
        #expect(throws: DERError.self) { try DERNode.parse(bytes(hex)).objectIdentifier("x") }
    }

    @Test func stringsAreCheckedAgainstTheirType() throws {
        #expect(try DERNode.parse(DER.utf8String("Zürich")).string("x") == "Zürich")
        #expect(throws: DERError.self) { try DERNode.parse(bytes("0C02C328")).string("x") }
        #expect(throws: DERError.self) { try DERNode.parse(bytes("1301 2A")).string("x") }
        #expect(throws: DERError.self) { try DERNode.parse(bytes("1601 41")).string("x") }
    }

    @Test func childrenOfAPrimitiveAreRefused() {
        #expect(throws: DERError.self) { try DERNode.parse(bytes("0401 00")).children() }
    }
}

@Suite struct ASN1TimeTests {
    @Test(arguments: [
        (ASN1Time(year: 1970, month: 1, day: 1), "170D 3730303130313030303030305A"),
        (
            ASN1Time(year: 2049, month: 12, day: 31, hour: 23, minute: 59, second: 59),
            "170D 3439313233313233353935395A"
        ),
        (ASN1Time(year: 2050, month: 1, day: 1), "180F 32303530303130313030303030305A"),
        (ASN1Time.noWellDefinedExpiration, "180F 39393939313233313233353935395A"),
    ])
    func timesUseUTCTimeUntil2049AndGeneralizedTimeAfter(time: ASN1Time, hex: String) throws {
        #expect(time.derEncoded == bytes(hex))
        #expect(try ASN1Time(node: DERNode.parse(bytes(hex)), "t") == time)
    }

    /// Gregorian leap years: every fourth year, except centuries not divisible by 400.
    @Test(arguments: [
        ("170D 3030303232393030303030305A", true),  // 2000-02-29
        ("170D 3234303232393030303030305A", true),  // 2024-02-29
        ("170D 3235303232393030303030305A", false),  // 2025-02-29
        ("180F 32313030303232393030303030305A", false),  // 2100-02-29
        ("180F 32343030303232393030303030305A", true),  // 2400-02-29
    ])
    func february29IsReadInLeapYearsOnly(hex: String, valid: Bool) {
        #expect(((try? ASN1Time(node: DERNode.parse(bytes(hex)), "t")) != nil) == valid)
    }

    @Test(arguments: [
        "170B 373030313031303030305A",  // no seconds
        "170D 373030313031303030303030",  // no Z, 13 digits
        "180F 32303439313233313233353935395A",  // GeneralizedTime before 2050
        "1811 32303530303130313030303030302E355A",  // fraction
        "170D 3236303233303030303030305A",  // 30 February
        "170D 3236313331303030303030305A",  // month 13
        "170D 3236303130313234303030305A",  // hour 24
    ])
    func malformedTimesAreRefused(hex: String) {
        #expect(throws: DERError.self) { try ASN1Time(node: DERNode.parse(bytes(hex)), "t") }
    }
}
