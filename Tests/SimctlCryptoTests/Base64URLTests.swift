import Testing

@testable import SimctlCrypto

/// Base64 and base64url (RFC 4648 §4 and §5): the published vectors, every byte value, and the fast appending
/// encoder against the plain one.
@Suite struct Base64URLTests {
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func base64URLMatchesRFC4648Vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        #expect(Base64URL.encodeStandard(Array(plain.utf8)).hasPrefix(encoded))
    }

    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ])
    func standardBase64MatchesRFC4648VectorsWithPadding(plain: String, encoded: String) {
        #expect(Base64URL.encodeStandard(Array(plain.utf8)) == encoded)
    }

    @Test func everyByteValueRoundTripsAndUsesTheURLAlphabet() {
        let bytes = (0...255).map(UInt8.init) + (0...255).reversed().map(UInt8.init)
        let url = Base64URL.encode(bytes)
        let standard = Base64URL.encodeStandard(bytes)
        #expect(url.contains("-") && url.contains("_") && !url.contains("+") && !url.contains("/"))
        #expect(standard.hasSuffix("="), "512 bytes leave 2 over: one padding character")
        let translated = standard.compactMap { c -> Character? in c == "+" ? "-" : c == "/" ? "_" : c == "=" ? nil : c }
        #expect(String(translated) == url)
        #expect(Base64URL.decode(url) == bytes)
        #expect(Base64URL.decode(url + "*") == nil)
    }

    @Test func fastBase64URLEqualsTheReferenceEncoder() {
        var random = TestRandom(seed: 15)
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8(random.nextInt(in: 0...255)) }
            var out: [UInt8] = [UInt8(ascii: "x")]
            bytes.withUnsafeBytes { Base64URL.appendURL($0, to: &out) }
            #expect(String(decoding: out, as: UTF8.self) == "x" + Base64URL.encode(bytes), "length \(length)")
        }
        // Long, into an empty array.
        let long = [UInt8](repeating: 0xFB, count: 10_000)
        var out: [UInt8] = []
        long.withUnsafeBytes { Base64URL.appendURL($0, to: &out) }
        #expect(String(decoding: out, as: UTF8.self) == Base64URL.encode(long))
    }

    @Test func appendingFillsSpareCapacityExactlyAndKeepsWhatWasThere() {
        // The characters go straight into the array's spare capacity (no zero-fill first): with exactly enough room,
        // more than enough, and none; what the array held before stays.
        var random = TestRandom(seed: 27)
        for length in [1, 2, 3, 5, 8, 9, 47, 300] {
            let bytes = (0..<length).map { _ in UInt8(random.nextInt(in: 0...255)) }
            let encoded = Array(Base64URL.encode(bytes).utf8)
            for spare in [0, encoded.count, encoded.count + 17] {
                var out: [UInt8] = Array("prefix".utf8)
                out.reserveCapacity(out.count + spare)
                bytes.withUnsafeBytes { Base64URL.appendURL($0, to: &out) }
                #expect(out == Array("prefix".utf8) + encoded, "length \(length), spare \(spare)")
            }
            // The characters as a sequence on their own (its iterator) give the same bytes.
            let characters = bytes.withUnsafeBytes { Array(Base64URL.URLCharacters(source: $0, count: encoded.count)) }
            #expect(characters == encoded)
        }
    }
}
