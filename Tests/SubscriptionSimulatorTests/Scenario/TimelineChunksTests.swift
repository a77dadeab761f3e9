import Foundation
import Testing

@testable import SubscriptionSimulator

/// A timeline read in chunks on several threads (`ScenarioDecoder.decode(_:overrides:threads:)`, `DeferredList`)
/// gives the scenario a read on one thread gives, and the same error: every file of Scenarios/, files written to
/// break at a chunk's edge, and hundreds of mutations of a scenario, in chunks of one and of two items.
@Suite struct TimelineChunksTests {
    /// The outcome of one read: the scenario, or the error's text (file, line, column and message).
    enum Outcome: Equatable {
        case scenario(Scenario)
        case error(String)
    }

    static func outcome(_ text: String, threads: Int, itemsPerChunk: Int, decoder: ScenarioDecoder) -> Outcome {
        do throws(ScenarioError) {
            return .scenario(
                try decoder.decode(text, overrides: .init(), threads: threads, itemsPerChunk: itemsPerChunk))
        } catch {
            return .error(error.description)
        }
    }

    /// Reads `text` on one thread and in chunks (of one item on three threads, of two on two), and expects the same
    /// outcome; returns it. The chunked read alone (`decodeInChunks`, without the read on one thread it falls back
    /// to) must give the same scenario when the file has a timeline to chunk, and nothing where the read on one
    /// thread finds an error: so a chunked read that went wrong cannot hide behind the fallback.
    @discardableResult
    static func expectSameOutcome(
        _ text: String, decoder: ScenarioDecoder = ScenarioDecoder(file: "chunks.yaml"),
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> Outcome {
        let serial = outcome(text, threads: 1, itemsPerChunk: ScenarioDecoder.timelineItemsPerChunk, decoder: decoder)
        let chunkable = ((try? chunkCount(text)) ?? 0) > 0
        for (threads, items) in [(3, 1), (2, 2)] {
            let context = "threads \(threads), \(items) item(s) a chunk"
            let chunked = outcome(text, threads: threads, itemsPerChunk: items, decoder: decoder)
            #expect(chunked == serial, "\(context)", sourceLocation: sourceLocation)
            let alone = decoder.decodeInChunks(text, overrides: .init(), threads: threads, itemsPerChunk: items)
            switch serial {
            case .scenario(let scenario):
                #expect(
                    alone == (chunkable ? scenario : nil), "\(context), chunks alone", sourceLocation: sourceLocation)
            case .error:
                #expect(alone == nil, "\(context), chunks alone", sourceLocation: sourceLocation)
            }
        }
        return serial
    }

    /// How many chunks of one item the reader notes for `text`'s timeline (0: none deferred).
    static func chunkCount(_ text: String) throws -> Int {
        try YAMLReader.parse(text, deferring: "timeline", itemsPerChunk: 1).1?.chunkCount ?? 0
    }

    @Test func everyScenarioFileReadsTheSameInChunks() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: PackagePaths.scenarios.path)
            .filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(names.count >= 40)
        var deferred = 0
        for name in names {
            let text = try PackagePaths.read(PackagePaths.scenarios.appendingPathComponent(name))
            let outcome = Self.expectSameOutcome(text, decoder: ScenarioFilesTests.decoder(name))
            guard case .scenario = outcome else {
                Issue.record("\(name) does not decode: \(outcome)")
                continue
            }
            if try Self.chunkCount(text) > 1 { deferred += 1 }
        }
        // Nearly every file's timeline is a block list of several items: the chunked path was taken, not skipped.
        #expect(deferred >= names.count - 5, "\(deferred) of \(names.count) files read in chunks")
    }

    static let head = """
        name: Chunks
        start: 2026-01-01T00:00:00Z
        app: { bundleId: com.example.chunks }
        products:
          - { id: com.example.monthly, type: autoRenewable, group: g, period: P1M, price: 9.99 }

        """

    static func items(_ count: Int, indent: String = "  ") -> String {
        (0..<count).map { i in
            "\(indent)- at: \(i)d\n\(indent)  purchase: { customer: c\(i), product: com.example.monthly }\n"
        }.joined()
    }

    @Test func aLongTimelineReadsTheSameAndIsChunked() throws {
        let text = Self.head + "timeline:\n" + Self.items(50) + "until: P3M\n"
        #expect(try Self.chunkCount(text) == 50)
        guard case .scenario(let scenario) = Self.expectSameOutcome(text) else {
            Issue.record("the scenario does not decode")
            return
        }
        #expect(scenario.timeline.count == 50)
        #expect(scenario.customers == (0..<50).map { "c\($0)" })
    }

    @Test func layoutsOfTheListReadTheSame() throws {
        // The list at its key's own indentation, comments and blank lines between and inside items, a comment at
        // column 1 inside the list, non-ASCII text, CRLF line endings, and the list as the document's last key.
        let atKeyIndent = Self.head + "timeline:\n" + Self.items(4, indent: "") + "until: P3M\n"
        #expect(try Self.chunkCount(atKeyIndent) == 4)
        Self.expectSameOutcome(atKeyIndent)
        let commented =
            Self.head + "timeline:\n  # first\n\n" + Self.items(2)
            + "# a comment at column 1\n\n  - at: 5d   # five days\n\n"
            + "    purchase: { customer: \"é😀\", product: com.example.monthly }\n"
            + "\n  # trailing\n\nuntil: P3M\n"
        #expect(try Self.chunkCount(commented) == 3)
        Self.expectSameOutcome(commented)
        Self.expectSameOutcome(commented.replacingOccurrences(of: "\n", with: "\r\n"))
        Self.expectSameOutcome(Self.head + "until: P3M\ntimeline:\n" + Self.items(3))
        // Not deferred: a flow list, an empty timeline, a `timeline` key below the top level.
        let flow = Self.head + "timeline: [{ at: 0s, purchase: { customer: a, product: com.example.monthly } }]\n"
        #expect(try Self.chunkCount(flow) == 0)
        Self.expectSameOutcome(flow)
        // Its tree, read once with nothing deferred, is the one decoded (the text is not read a second time).
        let read = ScenarioDecoder(file: "chunks.yaml").readInChunks(
            flow, overrides: .init(), threads: 2, itemsPerChunk: 1)
        guard case .noList(let tree) = read else {
            Issue.record("expected the tree of a file without a block timeline, found \(read)")
            return
        }
        #expect(tree == (try YAMLReader.parse(flow)))
        Self.expectSameOutcome(Self.head + "timeline:\n")
        Self.expectSameOutcome(Self.head + "timeline: []\n")
        let nested = Self.head + "app2:\n  timeline:\n" + Self.items(2, indent: "    ")
        #expect(try Self.chunkCount(nested) == 0)
        Self.expectSameOutcome(nested)
    }

    @Test func errorsAreTheOneThreadReadersErrors() throws {
        let cases: [(String, String)] = [
            // A YAML error in a late item, after a schema error earlier in the file: the YAML error is reported
            // (the file is parsed before it is decoded).
            (
                "yaml error after a schema error",
                Self.head.replacingOccurrences(of: "com.example.chunks", with: "[x") + "timeline:\n" + Self.items(3)
                    + "  - at: 9d\n    purchase: { customer: z\n"
            ),
            (
                "schema error in a late item",
                Self.head + "timeline:\n" + Self.items(3) + "  - at: 9d\n    purchse: { customer: z }\n"
            ),
            (
                "a flow mapping open across the next item's line",
                Self.head + "timeline:\n  - at: 0s\n    purchase: { customer: a,\n  - product: com.example.monthly }\n"
                    + Self.items(2)
            ),
            (
                "a flow list closed on the next item's line",
                Self.head + "timeline:\n  - at: [0s,\n  - 1s]\n" + Self.items(2)
            ),
            (
                "time order across chunks",
                Self.head + "timeline:\n" + Self.items(2)
                    + "  - at: 0s\n    cancel: { customer: c0, product: com.example.monthly }\n"
            ),
            (
                "text indented past the list after an item",
                Self.head + "timeline:\n" + Self.items(2) + "      stray: 1\n"
            ),
            ("a second timeline key", Self.head + "timeline:\n" + Self.items(2) + "timeline:\n" + Self.items(1)),
            ("an error after the list", Self.head + "timeline:\n" + Self.items(3) + "until: soon\n"),
            ("a tab in an item's indentation", Self.head + "timeline:\n" + Self.items(2) + "  - at: 1s\n\tcancel: x\n"),
            (
                "nesting too deep inside an item",
                Self.head + "timeline:\n" + Self.items(2) + "  - at: 1s\n    note: "
                    + String(repeating: "[", count: 120) + String(repeating: "]", count: 120) + "\n"
            ),
            ("a key among the items", Self.head + "timeline:\n" + Self.items(2) + "  at: 1s\n"),
            ("a document marker after the items", Self.head + "timeline:\n" + Self.items(2) + "---\nname: again\n"),
        ]
        for (name, text) in cases {
            let outcome = Self.expectSameOutcome(text)
            guard case .error = outcome else {
                Issue.record("\(name): expected an error, found a scenario")
                continue
            }
        }
    }

    @Test func mutationsOfAScenarioReadTheSame() throws {
        // 600 deterministic mutations of a scenario of many kinds of entries (lines deleted, repeated, swapped,
        // re-indented; brackets, dashes, colons, quotes and comment marks put in): whatever each gives, a scenario
        // or an error, the chunked read gives the same.
        let base = try PackagePaths.read(
            PackagePaths.scenarios.appendingPathComponent("family-share-held-during-billing-retry.yaml"))
        let decoder = ScenarioFilesTests.decoder("family-share-held-during-billing-retry.yaml")
        let lines = base.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var random = SplitMix64(state: 27)
        var errors = 0
        var scenarios = 0
        for _ in 0..<600 {
            var mutated = lines
            for _ in 0..<(random.next() % 4 == 0 ? 2 : 1) {
                let row = Int(random.next() % UInt64(mutated.count))
                switch random.next() % 8 {
                case 0: mutated.remove(at: row)
                case 1: mutated.insert(mutated[row], at: row)
                case 2: mutated.swapAt(row, Int(random.next() % UInt64(mutated.count)))
                case 3: mutated[row] = "  " + mutated[row]
                case 4: if mutated[row].hasPrefix("  ") { mutated[row].removeFirst(2) }
                default:
                    let marks = ["[", "{", "- ", ": ", "\"", "#", "]", "}"]
                    let mark = marks[Int(random.next() % UInt64(marks.count))]
                    var text = mutated[row]
                    let at = text.isEmpty ? 0 : Int(random.next() % UInt64(text.count + 1))
                    text.insert(contentsOf: mark, at: text.index(text.startIndex, offsetBy: at))
                    mutated[row] = text
                }
                if mutated.isEmpty { mutated = [""] }
            }
            switch Self.expectSameOutcome(mutated.joined(separator: "\n"), decoder: decoder) {
            case .scenario: scenarios += 1
            case .error: errors += 1
            }
        }
        // Both kinds of outcome were met many times, so the comparison covered both.
        #expect(scenarios >= 50 && errors >= 200, "\(scenarios) scenarios, \(errors) errors")
    }
}
