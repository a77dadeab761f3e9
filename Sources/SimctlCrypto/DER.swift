/// DER (ITU-T X.690 §10, the Distinguished Encoding Rules) for the ASN.1 types X.509 certificates and EC keys use.
///
/// Part of the simulator's signing code, which exists to make **test data** that production verifiers accept; it
/// is not meant to protect secrets. Encoding builds byte arrays; decoding (``DERNode``) is strict: it refuses
/// every encoding DER forbids (indefinite or non-minimal lengths, non-minimal INTEGERs, BOOLEANs other than
/// `00`/`FF`, BIT STRINGs with non-zero padding bits, non-minimal OID arcs, times outside RFC 5280's forms) and
/// bounds its work by the input's size.
package enum DER {
    /// Identifier octets of the universal and context-specific tags used here (X.690 §8.1.2; low tag numbers only).
    enum Tag {
        static let boolean: UInt8 = 0x01
        static let integer: UInt8 = 0x02
        static let bitString: UInt8 = 0x03
        static let octetString: UInt8 = 0x04
        static let null: UInt8 = 0x05
        static let objectIdentifier: UInt8 = 0x06
        static let utf8String: UInt8 = 0x0C
        static let printableString: UInt8 = 0x13
        static let utcTime: UInt8 = 0x17
        static let generalizedTime: UInt8 = 0x18
        static let sequence: UInt8 = 0x30
        static let set: UInt8 = 0x31

        /// `[number]` context-specific, constructed (EXPLICIT tagging, as X.509's `[0] version`, `[3] extensions`).
        static func contextConstructed(_ number: UInt8) -> UInt8 { 0xA0 | (number & 0x1F) }
        /// `[number]` context-specific, primitive (IMPLICIT tagging of a primitive, as `[0] keyIdentifier`).
        static func contextPrimitive(_ number: UInt8) -> UInt8 { 0x80 | (number & 0x1F) }
    }

    // MARK: - Encoding

    /// One TLV: the tag, the definite length in its shortest form (X.690 §10.1), the contents.
    static func tlv(_ tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [tag]
        out.reserveCapacity(contents.count + 6)
        if contents.count < 0x80 {
            out.append(UInt8(contents.count))
        } else {
            var length = contents.count
            var bytes: [UInt8] = []
            while length > 0 {
                bytes.insert(UInt8(length & 0xFF), at: 0)
                length >>= 8
            }
            out.append(0x80 | UInt8(bytes.count))
            out += bytes
        }
        return out + contents
    }

    static func sequence(_ elements: [[UInt8]]) -> [UInt8] { tlv(Tag.sequence, elements.flatMap { $0 }) }

    /// SET OF: DER orders the elements by their encodings (X.690 §11.6).
    static func set(_ elements: [[UInt8]]) -> [UInt8] {
        tlv(Tag.set, elements.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { $0 })
    }

    static func contextConstructed(_ number: UInt8, _ contents: [UInt8]) -> [UInt8] {
        tlv(Tag.contextConstructed(number), contents)
    }

    static func boolean(_ value: Bool) -> [UInt8] { tlv(Tag.boolean, [value ? 0xFF : 0x00]) }

    static func null() -> [UInt8] { [Tag.null, 0x00] }

    static func integer(_ value: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
        return tlv(Tag.integer, minimalTwosComplement(bytes))
    }

    /// A non-negative INTEGER from its big-endian magnitude (serial numbers, ECDSA `r` and `s`, key versions).
    static func unsignedInteger(_ magnitude: [UInt8]) -> [UInt8] {
        var bytes = Array(magnitude.drop { $0 == 0 })
        if bytes.isEmpty || bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return tlv(Tag.integer, bytes)
    }

    static func minimalTwosComplement(_ bytes: [UInt8]) -> [UInt8] {
        var start = 0
        while start + 1 < bytes.count {
            let (first, next) = (bytes[start], bytes[start + 1])
            if (first == 0x00 && next & 0x80 == 0) || (first == 0xFF && next & 0x80 != 0) { start += 1 } else { break }
        }
        return Array(bytes[start...])
    }

    /// BIT STRING of whole bytes (no unused bits), as keys and signatures are.
    static func bitString(_ bytes: [UInt8]) -> [UInt8] { tlv(Tag.bitString, [0] + bytes) }

    /// A named-bit BIT STRING (X.690 §11.2.2: trailing zero bits removed), as `KeyUsage`. Bit 0 is the first.
    static func namedBits(_ bits: [Int]) -> [UInt8] {
        guard let highest = bits.max() else { return tlv(Tag.bitString, [0]) }
        var bytes = [UInt8](repeating: 0, count: highest / 8 + 1)
        for bit in bits { bytes[bit / 8] |= 0x80 >> UInt8(bit % 8) }
        let unused = 7 - highest % 8
        return tlv(Tag.bitString, [UInt8(unused)] + bytes)
    }

    static func octetString(_ bytes: [UInt8]) -> [UInt8] { tlv(Tag.octetString, bytes) }

    static func utf8String(_ text: String) -> [UInt8] { tlv(Tag.utf8String, Array(text.utf8)) }

    /// PrintableString; the text must use only its characters (see ``isPrintable(_:)``).
    static func printableString(_ text: String) -> [UInt8] {
        precondition(isPrintable(text), "not a PrintableString: \(text)")
        return tlv(Tag.printableString, Array(text.utf8))
    }

    static func objectIdentifier(_ oid: ObjectIdentifier) -> [UInt8] { tlv(Tag.objectIdentifier, oid.contents) }

    /// PrintableString's character set (X.680 §41.4): letters, digits, space and `'()+,-./:=?`.
    static func isPrintable(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default: return Array(" '()+,-./:=?".utf8).contains(byte)
            }
        }
    }

    // MARK: - Object identifiers

    /// An OBJECT IDENTIFIER, kept as its arcs and its DER contents octets.
    package struct ObjectIdentifier: Hashable, Sendable, CustomStringConvertible {
        let arcs: [UInt64]
        let contents: [UInt8]

        /// From dotted text such as `1.2.840.10045.2.1`; `nil` unless it has at least two arcs, the first 0, 1 or 2,
        /// and the second below 40 when the first is 0 or 1 (X.660).
        package init?(_ dotted: String) {
            let parts = dotted.split(separator: ".", omittingEmptySubsequences: false)
            var arcs: [UInt64] = []
            for part in parts {
                guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }), let arc = UInt64(part) else {
                    return nil
                }
                arcs.append(arc)
            }
            guard arcs.count >= 2, arcs[0] <= 2, arcs[0] == 2 || arcs[1] < 40 else { return nil }
            guard arcs[0] < 2 || arcs[1] <= UInt64.max - 80 else { return nil }
            self.arcs = arcs
            var bytes: [UInt8] = []
            for arc in [arcs[0] * 40 + arcs[1]] + arcs.dropFirst(2) { bytes += Self.base128(arc) }
            self.contents = bytes
        }

        /// From DER contents octets, strictly (X.690 §8.19: each arc in the fewest octets).
        init(contents: ArraySlice<UInt8>) throws(DERError) {
            guard !contents.isEmpty else { throw DERError("an OBJECT IDENTIFIER has no contents") }
            guard contents.last! & 0x80 == 0 else { throw DERError("an OBJECT IDENTIFIER ends inside an arc") }
            var values: [UInt64] = []
            var current: UInt64 = 0
            var atStart = true
            for byte in contents {
                if atStart && byte == 0x80 {
                    throw DERError("an OBJECT IDENTIFIER arc has a leading 0x80 octet (not minimal)")
                }
                guard current >> 57 == 0 else { throw DERError("an OBJECT IDENTIFIER arc exceeds 64 bits") }
                current = current << 7 | UInt64(byte & 0x7F)
                atStart = byte & 0x80 == 0
                if atStart {
                    values.append(current)
                    current = 0
                }
            }
            let first = values[0]
            let head: [UInt64] = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80]
            self.arcs = head + values.dropFirst()
            self.contents = Array(contents)
        }

        static func base128(_ value: UInt64) -> [UInt8] {
            var out: [UInt8] = [UInt8(value & 0x7F)]
            var rest = value >> 7
            while rest > 0 {
                out.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
                rest >>= 7
            }
            return out
        }

        package var description: String { arcs.map(String.init).joined(separator: ".") }
    }
}

/// A DER input that breaks a rule; the message names the rule and, where known, the offset.
struct DERError: Error, Hashable, Sendable, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// One decoded TLV: its tag, contents and the full encoding, as slices of the input.
struct DERNode: Sendable {
    let tag: UInt8
    let contents: ArraySlice<UInt8>
    /// Tag, length and contents: the bytes a signature covers (e.g. the `tbsCertificate`).
    let encoded: ArraySlice<UInt8>

    /// Whether bit 6 of the identifier octet (constructed) is set.
    var isConstructed: Bool { tag & 0x20 != 0 }

    /// Decodes exactly one TLV that spans all of `bytes`.
    static func parse(_ bytes: [UInt8]) throws(DERError) -> DERNode {
        try parse(bytes[...])
    }

    static func parse(_ bytes: ArraySlice<UInt8>) throws(DERError) -> DERNode {
        var offset = bytes.startIndex
        let node = try read(bytes, at: &offset)
        guard offset == bytes.endIndex else {
            throw DERError("\(bytes.endIndex - offset) bytes follow the DER value at offset \(offset)")
        }
        return node
    }

    /// Reads one TLV at `offset` and moves `offset` past it.
    static func read(_ bytes: ArraySlice<UInt8>, at offset: inout Int) throws(DERError) -> DERNode {
        let start = offset
        guard offset < bytes.endIndex else { throw DERError("expected a DER value at offset \(offset), found the end") }
        let tag = bytes[offset]
        guard tag & 0x1F != 0x1F else {
            throw DERError("tag 0x\(hex(tag)) at offset \(offset) uses the high-tag-number form, not used here")
        }
        offset += 1
        guard offset < bytes.endIndex else { throw DERError("the length of the value at offset \(start) is missing") }
        let first = bytes[offset]
        offset += 1
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count != 0 else {
                throw DERError("indefinite length at offset \(start): DER requires definite lengths (X.690 §10.1)")
            }
            guard count <= 4 else { throw DERError("length of \(count) octets at offset \(start) is too large") }
            guard bytes.endIndex - offset >= count else { throw DERError("the length at offset \(start) is cut off") }
            guard bytes[offset] != 0 else {
                throw DERError("length at offset \(start) has a leading zero octet (not minimal, X.690 §10.1)")
            }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[offset])
                offset += 1
            }
            guard length >= 0x80 else {
                throw DERError("length \(length) at offset \(start) uses the long form; DER requires the short form")
            }
        }
        guard bytes.endIndex - offset >= length else {
            throw DERError(
                "value at offset \(start) claims \(length) bytes but only \(bytes.endIndex - offset) remain")
        }
        let contents = bytes[offset..<offset + length]
        offset += length
        return DERNode(tag: tag, contents: contents, encoded: bytes[start..<offset])
    }

    /// The TLVs inside a constructed value, in order.
    func children() throws(DERError) -> [DERNode] {
        guard isConstructed else { throw DERError("tag 0x\(DERNode.hex(tag)) is primitive; it has no elements") }
        var nodes: [DERNode] = []
        var offset = contents.startIndex
        while offset < contents.endIndex { nodes.append(try DERNode.read(contents, at: &offset)) }
        return nodes
    }

    /// Fails unless the tag is `expected`; `what` names the field for the message.
    @discardableResult
    func expect(_ expected: UInt8, _ what: String) throws(DERError) -> DERNode {
        guard tag == expected else {
            throw DERError("\(what): expected tag 0x\(DERNode.hex(expected)), found 0x\(DERNode.hex(tag))")
        }
        return self
    }

    /// The elements of a SEQUENCE.
    func sequence(_ what: String) throws(DERError) -> [DERNode] {
        try expect(DER.Tag.sequence, what).children()
    }

    /// The contents of an INTEGER after checking it is minimal (X.690 §8.3.2); two's complement, big-endian.
    func integerBytes(_ what: String) throws(DERError) -> [UInt8] {
        try expect(DER.Tag.integer, what)
        guard let first = contents.first else { throw DERError("\(what): an INTEGER has no contents") }
        if contents.count > 1 {
            let second = contents[contents.startIndex + 1]
            if (first == 0 && second & 0x80 == 0) || (first == 0xFF && second & 0x80 != 0) {
                throw DERError("\(what): INTEGER is not minimally encoded (X.690 §8.3.2)")
            }
        }
        return Array(contents)
    }

    /// A non-negative INTEGER's magnitude without the sign octet.
    func unsignedIntegerBytes(_ what: String) throws(DERError) -> [UInt8] {
        let bytes = try integerBytes(what)
        guard bytes[0] & 0x80 == 0 else { throw DERError("\(what): expected a non-negative INTEGER") }
        return bytes.count > 1 && bytes[0] == 0 ? Array(bytes.dropFirst()) : bytes
    }

    /// An INTEGER that fits in 64 bits.
    func int64(_ what: String) throws(DERError) -> Int64 {
        let bytes = try integerBytes(what)
        guard bytes.count <= 8 else { throw DERError("\(what): INTEGER does not fit in 64 bits") }
        var value: Int64 = bytes[0] & 0x80 != 0 ? -1 : 0
        for byte in bytes { value = value << 8 | Int64(byte) }
        return value
    }

    /// BOOLEAN: one octet, `00` or `FF` (X.690 §11.1).
    func boolean(_ what: String) throws(DERError) -> Bool {
        try expect(DER.Tag.boolean, what)
        guard contents.count == 1 else { throw DERError("\(what): a BOOLEAN has one octet, found \(contents.count)") }
        switch contents.first! {
        case 0x00: return false
        case 0xFF: return true
        default: throw DERError("\(what): a DER BOOLEAN is 00 or FF, found \(DERNode.hex(contents.first!))")
        }
    }

    func null(_ what: String) throws(DERError) {
        try expect(DER.Tag.null, what)
        guard contents.isEmpty else { throw DERError("\(what): NULL has no contents, found \(contents.count) octets") }
    }

    /// BIT STRING: the unused-bit count and the bytes; unused bits must be zero (X.690 §11.2.1).
    func bitString(_ what: String) throws(DERError) -> (bytes: [UInt8], unusedBits: Int) {
        try expect(DER.Tag.bitString, what)
        guard let unused = contents.first else { throw DERError("\(what): a BIT STRING has no contents") }
        guard unused <= 7 else { throw DERError("\(what): \(unused) unused bits; at most 7") }
        let bytes = Array(contents.dropFirst())
        if bytes.isEmpty && unused != 0 { throw DERError("\(what): an empty BIT STRING has 0 unused bits") }
        if let last = bytes.last, last & (UInt8(1 << unused) &- 1) != 0 {
            throw DERError("\(what): the unused bits of a BIT STRING must be zero (X.690 §11.2.1)")
        }
        return (bytes, Int(unused))
    }

    /// A BIT STRING holding whole bytes (keys, signatures).
    func bitStringBytes(_ what: String) throws(DERError) -> [UInt8] {
        let (bytes, unused) = try bitString(what)
        guard unused == 0 else { throw DERError("\(what): expected whole bytes, found \(unused) unused bits") }
        return bytes
    }

    /// A named-bit BIT STRING (`KeyUsage`) as the set bit numbers; trailing zero bits are forbidden (X.690 §11.2.2).
    func namedBits(_ what: String) throws(DERError) -> Set<Int> {
        let (bytes, unused) = try bitString(what)
        if let last = bytes.last, last & (1 << UInt8(unused)) == 0 {
            throw DERError("\(what): a named-bit BIT STRING must not end in zero bits (X.690 §11.2.2)")
        }
        var bits: Set<Int> = []
        for (index, byte) in bytes.enumerated() {
            for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 { bits.insert(index * 8 + bit) }
        }
        return bits
    }

    func octetString(_ what: String) throws(DERError) -> [UInt8] {
        Array(try expect(DER.Tag.octetString, what).contents)
    }

    func objectIdentifier(_ what: String) throws(DERError) -> DER.ObjectIdentifier {
        try expect(DER.Tag.objectIdentifier, what)
        do throws(DERError) { return try DER.ObjectIdentifier(contents: contents) } catch {
            throw DERError("\(what): \(error.message)")
        }
    }

    /// UTF8String (checked to be valid UTF-8) or PrintableString (checked against its character set).
    func string(_ what: String) throws(DERError) -> String {
        switch tag {
        case DER.Tag.utf8String:
            let text = String(decoding: contents, as: UTF8.self)
            guard text.utf8.elementsEqual(contents) else { throw DERError("\(what): UTF8String is not valid UTF-8") }
            return text
        case DER.Tag.printableString:
            let text = String(decoding: contents, as: UTF8.self)
            guard contents.allSatisfy({ $0 < 0x80 }), DER.isPrintable(text) else {
                throw DERError("\(what): PrintableString holds a character outside its set")
            }
            return text
        default:
            throw DERError("\(what): expected UTF8String or PrintableString, found tag 0x\(DERNode.hex(tag))")
        }
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
