// 256-bit integers and Montgomery arithmetic modulo P-256's field prime p and group order n (SEC 2 section 2.4.2,
// FIPS 186-5 / SP 800-186 section 3.2.1.3). Part of SimctlCrypto: cryptography for simulated test data only.
//
// Numbers are four 64-bit limbs, least significant first, held in a struct (no heap allocation). Multiplication is
// CIOS Montgomery multiplication (Koc, Acar and Kaliski, "Analyzing and Comparing Montgomery Multiplication
// Algorithms", 1996) with R = 2^256, built on `multipliedFullWidth(by:)`. Field elements and scalars inside this
// folder are kept in Montgomery form (x * R mod m) unless a name says otherwise.

import CP256

/// An unsigned 256-bit integer: four 64-bit limbs, `l0` least significant.
struct UInt256: Hashable, Sendable {
    var l0: UInt64
    var l1: UInt64
    var l2: UInt64
    var l3: UInt64

    static let zero = UInt256(l0: 0, l1: 0, l2: 0, l3: 0)
    static let one = UInt256(l0: 1, l1: 0, l2: 0, l3: 0)

    @inline(__always)
    init(l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
    }

    /// Reads 32 big-endian bytes.
    init(bigEndian bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count == 32)
        func limb(_ offset: Int) -> UInt64 {
            UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        self.init(l0: limb(24), l1: limb(16), l2: limb(8), l3: limb(0))
    }

    /// Reads exactly 32 big-endian bytes from an array.
    init(bigEndian bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { UInt256(bigEndian: $0) }
    }

    /// Reads a 32-byte hexadecimal constant (64 digits, spaces allowed).
    init(hex: String) {
        let digits = hex.filter { $0 != " " }
        precondition(digits.count == 64, "a 256-bit constant has 64 hex digits")
        var limbs: [UInt64] = []
        var index = digits.startIndex
        for _ in 0..<4 {
            let next = digits.index(index, offsetBy: 16)
            limbs.append(UInt64(digits[index..<next], radix: 16)!)
            index = next
        }
        self.init(l0: limbs[3], l1: limbs[2], l2: limbs[1], l3: limbs[0])
    }

    /// Writes 32 big-endian bytes.
    func store(bigEndianInto destination: UnsafeMutableRawPointer) {
        destination.storeBytes(of: l3.bigEndian, toByteOffset: 0, as: UInt64.self)
        destination.storeBytes(of: l2.bigEndian, toByteOffset: 8, as: UInt64.self)
        destination.storeBytes(of: l1.bigEndian, toByteOffset: 16, as: UInt64.self)
        destination.storeBytes(of: l0.bigEndian, toByteOffset: 24, as: UInt64.self)
    }

    /// The 32 big-endian bytes.
    var bigEndianBytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        out.withUnsafeMutableBytes { store(bigEndianInto: $0.baseAddress!) }
        return out
    }

    @inline(__always)
    var isZero: Bool { (l0 | l1 | l2 | l3) == 0 }

    /// Bit `i` (0 is the least significant).
    @inline(__always)
    func bit(_ i: Int) -> Bool {
        let limb: UInt64
        switch i >> 6 {
        case 0: limb = l0
        case 1: limb = l1
        case 2: limb = l2
        default: limb = l3
        }
        return (limb >> UInt64(i & 63)) & 1 == 1
    }

    /// Four bits starting at bit `4 * i` (i in 0..<64).
    @inline(__always)
    func nibble(_ i: Int) -> Int {
        let limb: UInt64
        switch i >> 4 {
        case 0: limb = l0
        case 1: limb = l1
        case 2: limb = l2
        default: limb = l3
        }
        return Int((limb >> UInt64((i & 15) * 4)) & 0xf)
    }

    /// Byte `i` (0 is the least significant, i < 32).
    @inline(__always)
    func byte(_ i: Int) -> Int {
        let limb: UInt64
        switch i >> 3 {
        case 0: limb = l0
        case 1: limb = l1
        case 2: limb = l2
        default: limb = l3
        }
        return Int((limb >> UInt64((i & 7) * 8)) & 0xff)
    }

    /// (top * 2^256 + self) >> 1, for top 0 or 1.
    @inline(__always)
    func shiftedRightOne(top: UInt64) -> UInt256 {
        UInt256(
            l0: (l0 >> 1) | (l1 << 63), l1: (l1 >> 1) | (l2 << 63), l2: (l2 >> 1) | (l3 << 63),
            l3: (l3 >> 1) | (top << 63))
    }

    /// `self < other` as unsigned integers.
    @inline(__always)
    func isLess(than other: UInt256) -> Bool {
        var borrow: UInt64 = 0
        _ = subtractWithBorrow(self, other, &borrow)
        return borrow != 0
    }
}

// MARK: - Limb primitives

/// `a * b + c + carry`: returns the low limb and leaves the high limb in `carry` (never overflows 128 bits).
@inline(__always)
func multiplyAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ carry: inout UInt64) -> UInt64 {
    let (high, low) = a.multipliedFullWidth(by: b)
    let (s1, o1) = low.addingReportingOverflow(c)
    let (s2, o2) = s1.addingReportingOverflow(carry)
    carry = high &+ (o1 ? 1 : 0) &+ (o2 ? 1 : 0)
    return s2
}

/// `a + b + carry` (carry 0 or 1): returns the sum limb and leaves the carry out in `carry`.
@inline(__always)
func addWithCarry(_ a: UInt64, _ b: UInt64, _ carry: inout UInt64) -> UInt64 {
    let (s1, o1) = a.addingReportingOverflow(b)
    let (s2, o2) = s1.addingReportingOverflow(carry)
    carry = (o1 ? 1 : 0) &+ (o2 ? 1 : 0)
    return s2
}

/// `a - b - borrow` (borrow 0 or 1): returns the difference limb and leaves the borrow out in `borrow`.
@inline(__always)
func subtractWithBorrow(_ a: UInt64, _ b: UInt64, _ borrow: inout UInt64) -> UInt64 {
    let (d1, o1) = a.subtractingReportingOverflow(b)
    let (d2, o2) = d1.subtractingReportingOverflow(borrow)
    borrow = (o1 ? 1 : 0) &+ (o2 ? 1 : 0)
    return d2
}

/// `a + b` over 256 bits; `carry` receives the carry out.
@inline(__always)
func addWithCarry(_ a: UInt256, _ b: UInt256, _ carry: inout UInt64) -> UInt256 {
    carry = 0
    let r0 = addWithCarry(a.l0, b.l0, &carry)
    let r1 = addWithCarry(a.l1, b.l1, &carry)
    let r2 = addWithCarry(a.l2, b.l2, &carry)
    let r3 = addWithCarry(a.l3, b.l3, &carry)
    return UInt256(l0: r0, l1: r1, l2: r2, l3: r3)
}

/// `a - b` over 256 bits; `borrow` receives the borrow out.
@inline(__always)
func subtractWithBorrow(_ a: UInt256, _ b: UInt256, _ borrow: inout UInt64) -> UInt256 {
    borrow = 0
    let r0 = subtractWithBorrow(a.l0, b.l0, &borrow)
    let r1 = subtractWithBorrow(a.l1, b.l1, &borrow)
    let r2 = subtractWithBorrow(a.l2, b.l2, &borrow)
    let r3 = subtractWithBorrow(a.l3, b.l3, &borrow)
    return UInt256(l0: r0, l1: r1, l2: r2, l3: r3)
}

// MARK: - Montgomery arithmetic

/// An odd 256-bit modulus m > 2^255 with its Montgomery constants for R = 2^256.
struct MontgomeryModulus: Sendable {
    /// The modulus.
    let m: UInt256
    /// -m^-1 mod 2^64.
    let m0inv: UInt64
    /// R mod m: the Montgomery form of 1.
    let one: UInt256
    /// R^2 mod m: multiplying by it converts into Montgomery form.
    let rSquared: UInt256
    /// R^3 mod m: turns the plain inverse of a Montgomery-form value into the Montgomery-form inverse.
    let rCubed: UInt256
    /// m - 2: the exponent of Fermat inversion.
    let mMinusTwo: UInt256

    /// P-256's field prime p = 2^256 - 2^224 + 2^192 + 2^96 - 1.
    static let p = MontgomeryModulus(
        m: UInt256(
            l0: 0xffff_ffff_ffff_ffff, l1: 0x0000_0000_ffff_ffff, l2: 0x0000_0000_0000_0000, l3: 0xffff_ffff_0000_0001),
        m0inv: 0x0000_0000_0000_0001,
        one: UInt256(
            l0: 0x0000_0000_0000_0001, l1: 0xffff_ffff_0000_0000, l2: 0xffff_ffff_ffff_ffff, l3: 0x0000_0000_ffff_fffe),
        rSquared: UInt256(
            l0: 0x0000_0000_0000_0003, l1: 0xffff_fffb_ffff_ffff, l2: 0xffff_ffff_ffff_fffe, l3: 0x0000_0004_ffff_fffd),
        rCubed: UInt256(
            l0: 0xffff_fffd_0000_000a, l1: 0xffff_ffed_ffff_fff7, l2: 0x0000_0005_ffff_fffc, l3: 0x0000_0018_0000_0001),
        mMinusTwo: UInt256(
            l0: 0xffff_ffff_ffff_fffd, l1: 0x0000_0000_ffff_ffff, l2: 0x0000_0000_0000_0000, l3: 0xffff_ffff_0000_0001))

    /// P-256's group order n.
    static let n = MontgomeryModulus(
        m: UInt256(
            l0: 0xf3b9_cac2_fc63_2551, l1: 0xbce6_faad_a717_9e84, l2: 0xffff_ffff_ffff_ffff, l3: 0xffff_ffff_0000_0000),
        m0inv: 0xccd1_c8aa_ee00_bc4f,
        one: UInt256(
            l0: 0x0c46_353d_039c_daaf, l1: 0x4319_0552_58e8_617b, l2: 0x0000_0000_0000_0000, l3: 0x0000_0000_ffff_ffff),
        rSquared: UInt256(
            l0: 0x8324_4c95_be79_eea2, l1: 0x4699_799c_49bd_6fa6, l2: 0x2845_b239_2b6b_ec59, l3: 0x66e1_2d94_f3d9_5620),
        rCubed: UInt256(
            l0: 0xac8e_bec9_0b65_a624, l1: 0x111f_28ae_0c05_55c9, l2: 0x2543_b924_6ba5_e93f, l3: 0x503a_54e7_6407_be65),
        mMinusTwo: UInt256(
            l0: 0xf3b9_cac2_fc63_254f, l1: 0xbce6_faad_a717_9e84, l2: 0xffff_ffff_ffff_ffff, l3: 0xffff_ffff_0000_0000))

    /// `a * b * R^-1 mod m`, for a, b < m.
    @inline(__always)
    func multiply(_ a: UInt256, _ b: UInt256) -> UInt256 {
        var t0: UInt64 = 0
        var t1: UInt64 = 0
        var t2: UInt64 = 0
        var t3: UInt64 = 0
        var t4: UInt64 = 0
        round(&t0, &t1, &t2, &t3, &t4, a, b.l0)
        round(&t0, &t1, &t2, &t3, &t4, a, b.l1)
        round(&t0, &t1, &t2, &t3, &t4, a, b.l2)
        round(&t0, &t1, &t2, &t3, &t4, a, b.l3)
        return reduceOnce(UInt256(l0: t0, l1: t1, l2: t2, l3: t3), carry: t4)
    }

    /// One outer iteration of CIOS: t = (t + a * bi + q * m) / 2^64, q chosen so the division is exact.
    @inline(__always)
    private func round(
        _ t0: inout UInt64, _ t1: inout UInt64, _ t2: inout UInt64, _ t3: inout UInt64, _ t4: inout UInt64,
        _ a: UInt256, _ bi: UInt64
    ) {
        var carry: UInt64 = 0
        t0 = multiplyAdd(a.l0, bi, t0, &carry)
        t1 = multiplyAdd(a.l1, bi, t1, &carry)
        t2 = multiplyAdd(a.l2, bi, t2, &carry)
        t3 = multiplyAdd(a.l3, bi, t3, &carry)
        var top: UInt64 = 0
        t4 = addWithCarry(t4, carry, &top)
        let q = t0 &* m0inv
        carry = 0
        _ = multiplyAdd(q, m.l0, t0, &carry)
        t0 = multiplyAdd(q, m.l1, t1, &carry)
        t1 = multiplyAdd(q, m.l2, t2, &carry)
        t2 = multiplyAdd(q, m.l3, t3, &carry)
        var carry2: UInt64 = 0
        t3 = addWithCarry(t4, carry, &carry2)
        t4 = top &+ carry2
    }

    /// Given x + carry * 2^256 < 2m, returns that value mod m.
    @inline(__always)
    func reduceOnce(_ x: UInt256, carry: UInt64) -> UInt256 {
        var borrow: UInt64 = 0
        let d = subtractWithBorrow(x, m, &borrow)
        return (carry != 0 || borrow == 0) ? d : x
    }

    @inline(__always)
    func square(_ a: UInt256) -> UInt256 { multiply(a, a) }

    /// `a + b mod m`, for a, b < m.
    @inline(__always)
    func add(_ a: UInt256, _ b: UInt256) -> UInt256 {
        var carry: UInt64 = 0
        let s = addWithCarry(a, b, &carry)
        return reduceOnce(s, carry: carry)
    }

    /// `a - b mod m`, for a, b < m.
    @inline(__always)
    func subtract(_ a: UInt256, _ b: UInt256) -> UInt256 {
        var borrow: UInt64 = 0
        let d = subtractWithBorrow(a, b, &borrow)
        if borrow == 0 { return d }
        var carry: UInt64 = 0
        return addWithCarry(d, m, &carry)
    }

    /// `-a mod m`.
    @inline(__always)
    func negate(_ a: UInt256) -> UInt256 { subtract(.zero, a) }

    /// Montgomery form of a value already below m.
    @inline(__always)
    func toMontgomery(_ a: UInt256) -> UInt256 { multiply(a, rSquared) }

    /// Plain value of a Montgomery-form number.
    @inline(__always)
    func fromMontgomery(_ a: UInt256) -> UInt256 { multiply(a, .one) }

    /// `a mod m` for any 256-bit a (one subtraction suffices because m > 2^255).
    @inline(__always)
    func reduce(_ a: UInt256) -> UInt256 { reduceOnce(a, carry: 0) }

    /// The inverse of a Montgomery-form value, in Montgomery form (zero for zero), by a binary extended Euclidean
    /// algorithm (`plainInverse`): variable-time, faster than exponentiation here.
    func inverse(_ a: UInt256) -> UInt256 {
        multiply(plainInverse(a), rCubed)
    }

    /// a^-1 mod m for a plain a < m (zero for zero), by the C target CP256 (`cp256_plain_inverse`): Kaliski's
    /// almost Montgomery inverse, a binary extended Euclidean algorithm with shifts and additions only, then a
    /// division by the power of two it leaves. Its running time depends on a: it is not constant-time.
    func plainInverse(_ a: UInt256) -> UInt256 {
        var value = a
        var modulus = m
        var result = UInt256.zero
        withUnsafeMutablePointer(to: &result) { r in
            withUnsafePointer(to: &value) { a in
                withUnsafePointer(to: &modulus) { m in
                    r.withMemoryRebound(to: UInt64.self, capacity: 4) { r in
                        a.withMemoryRebound(to: UInt64.self, capacity: 4) { a in
                            m.withMemoryRebound(to: UInt64.self, capacity: 4) { cp256_plain_inverse(r, a, $0) }
                        }
                    }
                }
            }
        }
        return result
    }

    /// The inverse by Fermat's little theorem, a^(m-2) with a fixed 4-bit window over the public exponent
    /// (Montgomery form in and out): the reference the tests compare `inverse` with.
    func inverseByExponentiation(_ a: UInt256) -> UInt256 {
        withUnsafeTemporaryAllocation(of: UInt256.self, capacity: 16) { powers in
            powers[0] = one
            powers[1] = a
            for i in 2..<16 { powers[i] = multiply(powers[i - 1], a) }
            var result = one
            var i = 63
            while i >= 0 {
                if i != 63 {
                    result = square(square(square(square(result))))
                }
                let digit = mMinusTwo.nibble(i)
                if digit != 0 { result = multiply(result, powers[digit]) }
                i -= 1
            }
            return result
        }
    }
}
