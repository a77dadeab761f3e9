import Testing

@testable import SubscriptionSimulator

/// Issue 10: the nesting limit holds for every construct, by design (one entry counts depth), and odd bytes give
/// clear messages.
@Suite struct YAMLHostileInputTests {
    static let limit = YAMLReader.maximumDepth

    /// Each construct repeated `n` times: each repetition nests one level deeper.
    static let constructs: [(name: String, make: @Sendable (Int) -> String)] = [
        (
            "block lists",
            { n in (0..<n).map { String(repeating: "  ", count: $0) + "-" }.joined(separator: "\n") + " x\n" }
        ),
        ("compact lists `- - x`", { n in String(repeating: "- ", count: n) + "x\n" }),
        (
            "`- key:` chains",
            { n in (0..<n).map { String(repeating: "  ", count: $0) + "- a:" }.joined(separator: "\n") + " x\n" }
        ),
        (
            "block mappings",
            { n in (0..<n).map { String(repeating: " ", count: $0) + "k:" }.joined(separator: "\n") + " x\n" }
        ),
        (
            "lists at their key's indentation",
            { n in
                (0..<n).map { String(repeating: "  ", count: $0) + "a:\n" + String(repeating: "  ", count: $0) + "-" }
                    .joined(separator: "\n") + " x\n"
            }
        ),
        ("flow lists", { n in String(repeating: "[", count: n) + String(repeating: "]", count: n) + "\n" }),
        ("flow mappings", { n in String(repeating: "{a: ", count: n) + "x" + String(repeating: "}", count: n) + "\n" }),
        (
            "flow inside block lists",
            { n in
                String(repeating: "- ", count: n / 2) + String(repeating: "[", count: n)
                    + String(repeating: "]", count: n) + "\n"
            }
        ),
    ]

    @Test(arguments: constructs.indices)
    func nestingLimitHoldsForEveryConstruct(index: Int) throws {
        let (name, make) = Self.constructs[index]
        // Indentation-based constructs grow quadratically with depth, so 1,000 levels; the one-line ones 40,000.
        let oneLine = make(3).split(separator: "\n").count == 1
        for depth in [Self.limit + 1, 1_000] + (oneLine ? [40_000] : []) {
            do {
                _ = try YAMLReader.parse(make(depth))
                Issue.record("\(name) nested \(depth) deep was accepted")
            } catch {
                #expect(error.message.contains("nest more than \(Self.limit) levels deep"), "\(name): \(error)")
            }
        }
        // Far enough below the limit, each construct reads (a scalar leaf counts as one more level).
        #expect(throws: Never.self, "\(name)") { try YAMLReader.parse(make(Self.limit / 2 - 2)) }
    }

    @Test func crOnlyLineEndingsAreNamed() {
        #expect(
            throws: YAMLError(
                location: SourceLocation(line: 1, column: 8),
                message:
                    "a carriage return (CR) with no line feed after it: the file seems to use CR-only line endings "
                    + "(classic Mac OS); save it with LF or CRLF line endings")
        ) { try YAMLReader.parse("name: x\rstart: y\r") }
    }

    @Test func controlCharactersInAKeyAreEscapedInMessages() {
        #expect(
            throws: YAMLError(
                location: SourceLocation(line: 3, column: 1),
                message: "duplicate key 'a\\0\\u{1B}'; first defined at 2:1")
        ) {
            try YAMLReader.parse("b: 1\n\"a\\0\\u001b\": 1\n\"a\\0\\u001b\": 2\n")
        }
        #expect(SourceText.escapingControlCharacters("a\0b\tc\u{7F}") == "a\\0b\\tc\\u{7F}")
    }

    @Test func aBytesOrderMarkIsAcceptedInAStoreKitFile() throws {
        let json =
            #"{"identifier":"x","products":[],"subscriptionGroups":[],"settings":{},"version":{"major":4,"minor":0}}"#
        let configuration = try StoreKitImporter.importData(
            [0xEF, 0xBB, 0xBF] + Array(json.utf8), fileName: "a.storekit")
        #expect(configuration.products.isEmpty)
    }

    @Test func aTruncatedStoreKitFileIsLocated() {
        #expect(throws: StoreKitImportError.self) {
            try StoreKitImporter.importData(Array(#"{"products": ["#.utf8), fileName: "t.storekit")
        }
        do {
            _ = try StoreKitImporter.importData(Array("{\n  \"products\": [".utf8), fileName: "t.storekit")
        } catch {
            #expect(error.description.hasPrefix("t.storekit:2:"), "\(error)")
        }
    }
}
