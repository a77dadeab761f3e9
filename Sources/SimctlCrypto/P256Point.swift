// Points of the curve P-256 (y^2 = x^3 - 3x + b over GF(p); SEC 2 section 2.4.2) and scalar multiplication.
// Part of SimctlCrypto: cryptography for simulated test data only, NOT constant-time (see P256.swift).
//
// Points are in Jacobian coordinates (x = X/Z^2, y = Y/Z^3) with coordinates in Montgomery form; Z = 0 is the point
// at infinity. Formulas are those of the Explicit-Formulas Database (hyperelliptic.org/EFD, "g1p/shortw/jacobian-3"):
// dbl-2001-b, madd-2007-bl and add-2007-bl, with their exceptional cases (equal or opposite inputs) handled.
//
// Fixed-base multiplication k*G uses a table of j * 256^i * G (i < 32, 1 <= j < 256) in affine form (512 KB), built
// once on first use (a Swift global, initialised lazily and thread-safely): k*G is the sum of 32 table entries, one
// per byte of k, with no doublings. Signing runs that sum in the C target CP256 (`generatorMultipleX`); the Swift
// code here builds the table, serves verification and key generation, and is what the tests compare the C with.
// Variable-base multiplication (for verification) uses a width-5 NAF.

import CP256

/// A point in affine coordinates (Montgomery form); never the point at infinity.
struct AffinePoint: Sendable, Hashable {
    var x: UInt256
    var y: UInt256
}

/// A point in Jacobian coordinates (Montgomery form); Z = 0 is the point at infinity.
struct JacobianPoint: Sendable {
    var x: UInt256
    var y: UInt256
    var z: UInt256

    static let infinity = JacobianPoint(x: MontgomeryModulus.p.one, y: MontgomeryModulus.p.one, z: .zero)

    @inline(__always)
    var isInfinity: Bool { z.isZero }

    @inline(__always)
    init(x: UInt256, y: UInt256, z: UInt256) {
        self.x = x
        self.y = y
        self.z = z
    }

    @inline(__always)
    init(_ point: AffinePoint) {
        self.init(x: point.x, y: point.y, z: MontgomeryModulus.p.one)
    }

    /// 2P (dbl-2001-b, a = -3).
    @inline(__always)
    func doubled() -> JacobianPoint {
        let f = MontgomeryModulus.p
        if isInfinity || y.isZero { return .infinity }
        let delta = f.square(z)
        let gamma = f.square(y)
        let beta = f.multiply(x, gamma)
        let t = f.multiply(f.subtract(x, delta), f.add(x, delta))
        let alpha = f.add(f.add(t, t), t)
        let beta2 = f.add(beta, beta)
        let beta4 = f.add(beta2, beta2)
        let beta8 = f.add(beta4, beta4)
        let x3 = f.subtract(f.square(alpha), beta8)
        let z3 = f.subtract(f.subtract(f.square(f.add(y, z)), gamma), delta)
        let gamma2 = f.square(gamma)
        let g2 = f.add(gamma2, gamma2)
        let g4 = f.add(g2, g2)
        let g8 = f.add(g4, g4)
        let y3 = f.subtract(f.multiply(alpha, f.subtract(beta4, x3)), g8)
        return JacobianPoint(x: x3, y: y3, z: z3)
    }

    /// P + Q for an affine Q (madd-2007-bl).
    @inline(__always)
    func adding(_ q: AffinePoint) -> JacobianPoint {
        let f = MontgomeryModulus.p
        if isInfinity { return JacobianPoint(q) }
        let z1z1 = f.square(z)
        let u2 = f.multiply(q.x, z1z1)
        let s2 = f.multiply(q.y, f.multiply(z, z1z1))
        let h = f.subtract(u2, x)
        let sDiff = f.subtract(s2, y)
        if h.isZero {
            return sDiff.isZero ? doubled() : .infinity
        }
        let hh = f.square(h)
        let hh2 = f.add(hh, hh)
        let i = f.add(hh2, hh2)
        let j = f.multiply(h, i)
        let r = f.add(sDiff, sDiff)
        let v = f.multiply(x, i)
        let x3 = f.subtract(f.subtract(f.square(r), j), f.add(v, v))
        let yj = f.multiply(y, j)
        let y3 = f.subtract(f.multiply(r, f.subtract(v, x3)), f.add(yj, yj))
        let z3 = f.subtract(f.subtract(f.square(f.add(z, h)), z1z1), hh)
        return JacobianPoint(x: x3, y: y3, z: z3)
    }

    /// P + Q (add-2007-bl).
    func adding(_ q: JacobianPoint) -> JacobianPoint {
        let f = MontgomeryModulus.p
        if isInfinity { return q }
        if q.isInfinity { return self }
        let z1z1 = f.square(z)
        let z2z2 = f.square(q.z)
        let u1 = f.multiply(x, z2z2)
        let u2 = f.multiply(q.x, z1z1)
        let s1 = f.multiply(y, f.multiply(q.z, z2z2))
        let s2 = f.multiply(q.y, f.multiply(z, z1z1))
        let h = f.subtract(u2, u1)
        let sDiff = f.subtract(s2, s1)
        if h.isZero {
            return sDiff.isZero ? doubled() : .infinity
        }
        let h2 = f.add(h, h)
        let i = f.square(h2)
        let j = f.multiply(h, i)
        let r = f.add(sDiff, sDiff)
        let v = f.multiply(u1, i)
        let x3 = f.subtract(f.subtract(f.square(r), j), f.add(v, v))
        let s1j = f.multiply(s1, j)
        let y3 = f.subtract(f.multiply(r, f.subtract(v, x3)), f.add(s1j, s1j))
        let z3 = f.multiply(f.subtract(f.subtract(f.square(f.add(z, q.z)), z1z1), z2z2), h)
        return JacobianPoint(x: x3, y: y3, z: z3)
    }

    /// The affine x coordinate (Montgomery form), or nil for the point at infinity: what ECDSA signing needs.
    func affineX() -> UInt256? {
        if isInfinity { return nil }
        let f = MontgomeryModulus.p
        return f.multiply(x, f.square(f.inverse(z)))
    }

    @inline(__always)
    func negated() -> JacobianPoint {
        JacobianPoint(x: x, y: MontgomeryModulus.p.negate(y), z: z)
    }

    /// The affine form, or nil for the point at infinity (one field inversion).
    func affine() -> AffinePoint? {
        if isInfinity { return nil }
        let f = MontgomeryModulus.p
        let zInverse = f.inverse(z)
        let zInverse2 = f.square(zInverse)
        return AffinePoint(x: f.multiply(x, zInverse2), y: f.multiply(y, f.multiply(zInverse, zInverse2)))
    }
}

// MARK: - Curve constants

enum P256Curve {
    /// b of y^2 = x^3 - 3x + b, in Montgomery form.
    static let bMontgomery = MontgomeryModulus.p.toMontgomery(
        UInt256(hex: "5ac635d8aa3a93e7 b3ebbd55769886bc 651d06b0cc53b0f6 3bce3c3e27d2604b"))

    /// The base point G, in Montgomery form.
    static let generator = AffinePoint(
        x: MontgomeryModulus.p.toMontgomery(
            UInt256(hex: "6b17d1f2e12c4247 f8bce6e563a440f2 77037d812deb33a0 f4a13945d898c296")),
        y: MontgomeryModulus.p.toMontgomery(
            UInt256(hex: "4fe342e2fe1a7f9b 8ee7eb4a7c0f9e16 2bce33576b315ece cbb6406837bf51f5")))

    /// Whether affine (x, y), in Montgomery form, satisfies y^2 = x^3 - 3x + b.
    static func isOnCurve(_ point: AffinePoint) -> Bool {
        let f = MontgomeryModulus.p
        let x2 = f.square(point.x)
        let x3 = f.multiply(x2, point.x)
        let threeX = f.add(f.add(point.x, point.x), point.x)
        let rhs = f.add(f.subtract(x3, threeX), bMontgomery)
        return f.square(point.y) == rhs
    }

    /// k*G for a plain (not Montgomery) scalar k: one table entry per byte of k, added in Jacobian form.
    static func multiplyGenerator(_ k: UInt256) -> JacobianPoint {
        generatorTable.withUnsafeBufferPointer { table in
            var result = JacobianPoint.infinity
            for i in 0..<32 {
                let digit = k.byte(i)
                if digit != 0 { result = result.adding(table[i &* 256 &+ digit]) }
            }
            return result
        }
    }

    /// A field multiplication of the C target CP256, for k*G's table sum: `portable` (128-bit products, P-256's own
    /// Montgomery reduction) runs everywhere, `x86ADX` (the same steps in x86-64 assembly with `mulx`, `adcx` and
    /// `adox`) where the CPU has BMI2 and ADX. Both give the same bits.
    enum Engine: Int32, Sendable, CaseIterable {
        case portable = 0
        case x86ADX = 1

        /// The fastest engine this CPU runs (detected once).
        static let best = Engine(rawValue: cp256_best_engine()) ?? .portable

        /// Whether this CPU runs the engine.
        var isAvailable: Bool { cp256_engine_available(rawValue) != 0 }
    }

    /// The affine x of k*G, plain (not Montgomery form), for a plain scalar k, or nil when k*G is the point at
    /// infinity: what ECDSA signing needs. The same table sum as `multiplyGenerator` and one inversion, run by the
    /// C target CP256 with `engine` (which must be available), reading `generatorTable` in place.
    static func generatorMultipleX(_ k: UInt256, engine: Engine = .best) -> UInt256? {
        // The table is read as 8 limbs per point (x then y, least significant limb first): Swift lays out these
        // structs of UInt64s in declaration order, which these checks (constant-folded) keep honest.
        precondition(
            MemoryLayout<AffinePoint>.stride == 64 && MemoryLayout<AffinePoint>.offset(of: \.y) == 32
                && MemoryLayout<UInt256>.offset(of: \.l1) == 8 && MemoryLayout<UInt256>.offset(of: \.l3) == 24)
        var littleEndian = (k.l0.littleEndian, k.l1.littleEndian, k.l2.littleEndian, k.l3.littleEndian)
        var x: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        let finite = generatorTable.withUnsafeBytes { table in
            withUnsafeBytes(of: &littleEndian) { scalar in
                withUnsafeMutableBytes(of: &x) { out in
                    cp256_generator_multiple_x(
                        engine.rawValue, out.baseAddress!.assumingMemoryBound(to: UInt64.self),
                        table.baseAddress!.assumingMemoryBound(to: UInt64.self),
                        scalar.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        return finite != 0 ? UInt256(l0: x.0, l1: x.1, l2: x.2, l3: x.3) : nil
    }

    /// k*P for a plain scalar k and any point P, by a width-5 NAF: about 256 doublings and 51 additions.
    static func multiply(_ point: AffinePoint, by k: UInt256) -> JacobianPoint {
        withUnsafeTemporaryAllocation(of: Int8.self, capacity: 260) { digits in
            let count = widthFiveNAF(of: k, into: digits)
            return withUnsafeTemporaryAllocation(of: JacobianPoint.self, capacity: 8) { odd in
                // odd[i] = (2i + 1) P
                let p1 = JacobianPoint(point)
                let twice = p1.doubled()
                odd[0] = p1
                for i in 1..<8 { odd[i] = odd[i - 1].adding(twice) }
                var result = JacobianPoint.infinity
                var i = count - 1
                while i >= 0 {
                    result = result.doubled()
                    let digit = Int(digits[i])
                    if digit > 0 {
                        result = result.adding(odd[digit >> 1])
                    } else if digit < 0 {
                        result = result.adding(odd[(-digit) >> 1].negated())
                    }
                    i -= 1
                }
                return result
            }
        }
    }

    /// The width-5 non-adjacent form of k (digits odd in -15...15 or zero, least significant first); returns
    /// the number of digits written (at most 257).
    static func widthFiveNAF(of k: UInt256, into digits: UnsafeMutableBufferPointer<Int8>) -> Int {
        var value = k
        var high: UInt64 = 0  // bit 256, set when adding a digit carries out
        var count = 0
        while !value.isZero || high != 0 {
            var digit: Int64 = 0
            if value.l0 & 1 == 1 {
                digit = Int64(value.l0 & 31)
                if digit >= 16 { digit -= 32 }
                var carry: UInt64 = 0
                if digit > 0 {
                    value = subtractWithBorrow(value, UInt256(l0: UInt64(digit), l1: 0, l2: 0, l3: 0), &carry)
                    high &-= carry
                } else {
                    value = addWithCarry(value, UInt256(l0: UInt64(-digit), l1: 0, l2: 0, l3: 0), &carry)
                    high &+= carry
                }
            }
            digits[count] = Int8(digit)
            count += 1
            value = UInt256(
                l0: (value.l0 >> 1) | (value.l1 << 63), l1: (value.l1 >> 1) | (value.l2 << 63),
                l2: (value.l2 >> 1) | (value.l3 << 63), l3: (value.l3 >> 1) | (high << 63))
            high >>= 1
        }
        return count
    }

    /// j * 256^i * G at index 256 i + j (entries with j = 0 are unused), affine, Montgomery form. Built on first use.
    static let generatorTable: [AffinePoint] = buildGeneratorTable()

    private static func buildGeneratorTable() -> [AffinePoint] {
        let f = MontgomeryModulus.p
        var jacobian: [JacobianPoint] = []
        jacobian.reserveCapacity(32 * 256)
        var base = generator
        for _ in 0..<32 {
            jacobian.append(.infinity)
            var point = JacobianPoint(base)
            jacobian.append(point)
            for _ in 2..<256 {
                point = point.adding(base)
                jacobian.append(point)
            }
            // 256 * base = 2 * (128 * base), with 128 * base at offset 128 of this window's 256 entries.
            base = jacobian[jacobian.count - 128].doubled().affine()!
        }
        // Batch inversion (Montgomery's trick): one field inversion for all Z coordinates.
        var prefix = [UInt256](repeating: f.one, count: jacobian.count)
        var running = f.one
        for (index, point) in jacobian.enumerated() where !point.isInfinity {
            prefix[index] = running
            running = f.multiply(running, point.z)
        }
        var inverse = f.inverse(running)
        var table = [AffinePoint](repeating: AffinePoint(x: .zero, y: .zero), count: jacobian.count)
        for index in jacobian.indices.reversed() where !jacobian[index].isInfinity {
            let point = jacobian[index]
            let zInverse = f.multiply(inverse, prefix[index])
            inverse = f.multiply(inverse, point.z)
            let zInverse2 = f.square(zInverse)
            table[index] = AffinePoint(
                x: f.multiply(point.x, zInverse2), y: f.multiply(point.y, f.multiply(zInverse, zInverse2)))
        }
        return table
    }
}
