// Structure-aware mutation shared by every fuzz target (compiled into each one by build.sh).
//
// Byte-level mutation alone never built 40,000 nested `- ` or a nine-digit year, which is why it missed the stack
// overflow and the date overflows of issue 10. This mutator, with some probability, makes one such change itself:
// it wraps the input in deep nesting (block lists, compact `- - `, `- key:` chains, flow brackets, JSON arrays) or
// replaces a number with an extreme one; otherwise it hands the input to libFuzzer's own mutator.

@_silgen_name("LLVMFuzzerMutate")
func libFuzzerMutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int) -> Int

/// A small deterministic generator (SplitMix64) seeded by libFuzzer, so a mutation can be replayed.
struct MutationRandom {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// Values at the edges: of the date range, of 64-bit arithmetic, of the duration syntax.
let extremeValues: [String] = [
    "0", "-1", "1", "999999999", "9999999999999999999", "18446744073709551616", "P999999999Y", "P292471208Y",
    "P1200000Y", "P400000Y", "P8030Y", "P7973Y", "P999999999M", "P999999999W", "P999999999D", "PT999999999H",
    "PT999999999.999S", "999999999w", "999999999d", "999999999ms", "9999-12-31T23:59:59.999Z",
    "9999-12-31T23:59:59Z", "10000-01-01T00:00:00Z", "0000-01-01T00:00:00Z", "1969-12-31T23:59:59.999Z",
    "1970-01-01T00:00:00Z", "2026-02-29T00:00:00Z", "2028-02-29T00:00:00Z", "1e308", "-0", "0.000001",
    "9223372036854775807", "-9223372036854775808", "\"\\u0000\"", "\u{FEFF}", "\r", "\0",
]

/// Prefixes that nest what follows one level deeper each time they are repeated.
let nestingUnits: [(open: String, close: String)] = [
    ("- ", ""), ("- - ", ""), ("- a:\n  ", ""), ("[", "]"), ("{a: ", "}"), ("a:\n  ", ""), ("[{\"a\": ", "}]"),
]

func structureAwareMutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    var random = MutationRandom(state: UInt64(seed) &* 0x2545_F491_4F6C_DD1D &+ 1)
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var output: [UInt8]
    switch random.below(10) {
    case 0:
        // Deep nesting, from a few levels to far past any limit (rarely the very long inputs, which are slow).
        let unit = nestingUnits[random.below(nestingUnits.count)]
        let depth = random.below(8) == 0 ? 40_000 : [2, 50, 99, 100, 101, 1_000][random.below(6)]
        output =
            Array(String(repeating: unit.open, count: depth).utf8) + input.prefix(64)
            + Array(String(repeating: unit.close, count: depth).utf8)
    case 1, 2:
        // Replace the first run of digits (or duration) after a random point with an extreme value.
        output = input
        let start = size == 0 ? 0 : random.below(size)
        var i = start
        while i < output.count, !(48...57).contains(output[i]) && output[i] != UInt8(ascii: "P") { i += 1 }
        var j = i
        while j < output.count, output[j] != 10, output[j] != 32, output[j] != 44, output[j] != 93, output[j] != 125 {
            j += 1
        }
        let value = Array(extremeValues[random.below(extremeValues.count)].utf8)
        output.replaceSubrange(i..<j, with: value)
    default:
        return libFuzzerMutate(data, size, maxSize)
    }
    let count = min(output.count, maxSize)
    output.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: count) }
    return count
}

@_cdecl("LLVMFuzzerCustomMutator")
public func fuzzerCustomMutator(
    _ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32
) -> Int {
    structureAwareMutate(data, size, maxSize, seed)
}
