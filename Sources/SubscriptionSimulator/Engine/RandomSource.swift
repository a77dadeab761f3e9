/// A seeded, deterministic random number generator: SplitMix64 expands the seed into the state of xoshiro256**.
/// Ranges are mapped by our own code (rejection sampling), not the standard library's, whose mapping may change
/// between Swift versions.
package struct RandomSource: Sendable {
    var state: (UInt64, UInt64, UInt64, UInt64)

    package init(seed: UInt64) {
        var splitMix = SplitMix64(state: seed)
        state = (splitMix.next(), splitMix.next(), splitMix.next(), splitMix.next())
    }

    package mutating func next() -> UInt64 {
        let result = rotateLeft(state.1 &* 5, 7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = rotateLeft(state.3, 45)
        return result
    }

    /// A uniformly distributed integer in `range` (unbiased: rejection sampling).
    package mutating func nextInt(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(bitPattern: Int64(range.upperBound) &- Int64(range.lowerBound)) &+ 1
        if span == 0 { return Int(truncatingIfNeeded: next()) }  // the full 64-bit range
        let limit = UInt64.max - (UInt64.max % span) - 1
        var value = next()
        while value > limit { value = next() }
        return range.lowerBound &+ Int(truncatingIfNeeded: value % span)
    }

    /// A uniformly distributed double in [0, 1) with 53 random bits.
    package mutating func nextDouble() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }

    func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
}

/// SplitMix64 (Steele, Lea, Flood 2014): seeds other generators and mixes counters into identifiers.
struct SplitMix64: Sendable {
    var state: UInt64

    /// The increment of the state at each draw (the golden gamma).
    static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15

    mutating func next() -> UInt64 {
        state &+= Self.gamma
        return Self.mix(state)
    }

    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
