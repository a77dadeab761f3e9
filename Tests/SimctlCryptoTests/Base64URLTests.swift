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

    /// Every encoder of the C target this CPU runs against the reference encoder: every length up to 300 (so every
    /// tail after the 24-byte and 12-byte vector steps, which need 28 and 16 readable bytes), every start offset
    /// within 16 bytes (the vector loads are unaligned), and inputs that reach all 64 characters.
    @Test(arguments: Base64URL.Engine.allCases)
    func everyEncoderEqualsTheReferenceEncoder(engine: Base64URL.Engine) {
        guard engine.isAvailable else { return }
        var random = TestRandom(seed: 41)
        let pool = (0..<(300 + 16)).map { _ in UInt8(random.nextInt(in: 0...255)) }
        for offset in 0..<16 {
            for length in 0...300 {
                let bytes = Array(pool[offset..<(offset + length)])
                var out: [UInt8] = []
                pool.withUnsafeBytes { all in
                    Base64URL.appendURL(
                        UnsafeRawBufferPointer(rebasing: all[offset..<(offset + length)]), to: &out,
                        engine: engine)
                }
                #expect(
                    String(decoding: out, as: UTF8.self) == Base64URL.encode(bytes),
                    "\(engine), offset \(offset), length \(length)")
            }
        }
        // Every sextet value in every position of a group: the bytes 0x00-0xFF in each of the three places.
        for place in 0..<3 {
            var bytes: [UInt8] = []
            for value in 0...255 {
                var group: [UInt8] = [0x5A, 0xA5, 0x3C]
                group[place] = UInt8(value)
                bytes += group
            }
            var out: [UInt8] = []
            bytes.withUnsafeBytes { Base64URL.appendURL($0, to: &out, engine: engine) }
            #expect(String(decoding: out, as: UTF8.self) == Base64URL.encode(bytes), "\(engine), place \(place)")
        }
    }

    @Test func theBestEncoderIsAvailable() {
        #expect(Base64URL.Engine.best.isAvailable)
        #expect(Base64URL.Engine.portable.isAvailable)
        #if arch(x86_64)
            // Every x86-64 CPU this project runs on has SSSE3 (from 2006 on); CI must exercise the vector path. The
            // 256-bit one is the best wherever the CPU has AVX2 (this project's CI machines do; elsewhere the AVX2
            // case of the test above returns without checking).
            #expect(Base64URL.Engine.x86SSSE3.isAvailable)
            #expect(Base64URL.Engine.best == (Base64URL.Engine.x86AVX2.isAvailable ? .x86AVX2 : .x86SSSE3))
        #endif
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
            let characters = bytes.withUnsafeBytes {
                Array(Base64URL.URLCharacters(source: $0, count: encoded.count, engine: .best))
            }
            #expect(characters == encoded)
        }
    }
}
