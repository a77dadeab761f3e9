import Testing

@testable import SubscriptionSimulator

/// The YAML tree and the decoded timeline stay small for long scenarios (issue 15 part 1), and nothing about them
/// changes but their size: locations, texts and decoded values are what they were.
@Suite struct YAMLCompactTreeTests {
    /// `count` timeline entries, one purchase each, the same long product id on every one.
    static func longTimeline(_ count: Int, product: String = "com.example.scale.monthly") -> String {
        var yaml = """
            name: long
            start: 2026-01-01T00:00:00Z
            app:
              bundleId: com.example.scale
            products:
              - id: \(product)
                type: autoRenewable
                group: scale
                period: P1M
                price: 9.99
            timeline:

            """
        for index in 0..<count {
            yaml += "  - at: \(index)s\n    purchase: { customer: c\(index), product: \(product) }\n"
        }
        return yaml + "until: P1Y\n"
    }

    /// Whether two strings share one buffer (a long text is a heap allocation; interned copies point at the same).
    static func shareStorage(_ first: String, _ second: String) -> Bool {
        var first = first
        var second = second
        return first.withUTF8 { a in second.withUTF8 { b in a.baseAddress == b.baseAddress } }
    }

    @Test func nodesAndLocationsAreCompact() {
        #expect(MemoryLayout<SubscriptionSimulator.SourceLocation>.size == 8)
        #expect(MemoryLayout<YAMLNode>.stride <= 32)
        #expect(MemoryLayout<YAMLMappingEntry>.stride <= 64)
    }

    @Test func locationsPastSixtyFiveThousandLinesAndColumnsAreExact() throws {
        let count = 70_000
        var text = "items:\n" + String(repeating: "  - a\n", count: count)
        let items = try #require(try YAMLReader.parse(text).value(forKey: "items")?.sequenceItems)
        #expect(items.count == count)
        #expect(items.last?.location == SourceLocation(line: count + 1, column: 5))
        // A line of more than 65,535 columns, after a non-ASCII line (columns count scalars, not bytes).
        let long = String(repeating: "x", count: count)
        text += "b: \"été\"\nc: \(long) é: x\n"
        #expect(throws: YAMLError.self) { try YAMLReader.parse(text) }
        do {
            _ = try YAMLReader.parse(text)
        } catch {
            #expect(error.location == SourceLocation(line: count + 3, column: 4 + count + 2))
            #expect(error.message.hasPrefix("':' inside a plain value is ambiguous"))
        }
    }

    @Test func locationsClampPastThirtyTwoBits() {
        let far = SourceLocation(line: Int(Int32.max) + 10, column: -5 + Int(Int32.min))
        #expect(far.line == Int(Int32.max))
        #expect(far.column == Int(Int32.min))
        var near = SourceLocation(line: 70_000, column: 1)
        near.column = 131_073
        #expect(near.description == "70000:131073")
    }

    @Test func repeatedLongTextsShareOneCopy() throws {
        let root = try YAMLReader.parse(Self.longTimeline(3))
        let items = try #require(root.value(forKey: "timeline")?.sequenceItems)
        let products = items.compactMap { $0.value(forKey: "purchase")?.value(forKey: "product")?.scalarText }
        #expect(products == Array(repeating: "com.example.scale.monthly", count: 3))
        #expect(Self.shareStorage(products[0], products[1]))
        #expect(Self.shareStorage(products[1], products[2]))
    }

    @Test func decodedTimelineSharesTheCatalogsProductIds() throws {
        let scenario = try ScenarioDecoder(file: "long.yaml").decode(Self.longTimeline(4))
        let products = scenario.timeline.compactMap { entry -> String? in
            if case .purchase(_, let product, _, _) = entry.action { return product }
            return nil
        }
        #expect(products.count == 4)
        let catalogId = try #require(scenario.catalog.products.first?.id)
        #expect(products.allSatisfy { Self.shareStorage($0, catalogId) })
    }

    @Test func decodingWhileFreeingTheTreeGivesTheSameScenario() throws {
        let text = Self.longTimeline(300)
        let decoder = ScenarioDecoder(file: "long.yaml")
        let first = try decoder.decode(text)
        #expect(try decoder.decode(text) == first)
        #expect(first.timeline.count == 300)
        #expect(
            first.timeline[299]
                == TimelineEntry(
                    at: first.start.adding(milliseconds: 299_000),
                    action: .purchase(customer: "c299", product: "com.example.scale.monthly"),
                    location: SourceLocation(line: 13 + 2 * 299, column: 5)))
        #expect(first.customers.count == 300)
    }

    @Test func aLateTimelineErrorIsReportedAtItsPlaceAfterEarlierEntriesAreFreed() {
        let text = Self.longTimeline(2_000).replacing(
            "purchase: { customer: c1999,", with: "purchase: { customer: c1999, extra: 1,")
        #expect(throws: ScenarioError.self) { try ScenarioDecoder(file: "long.yaml").decode(text) }
        do {
            _ = try ScenarioDecoder(file: "long.yaml").decode(text)
        } catch {
            #expect(error.location == SourceLocation(line: 13 + 2 * 1999, column: 34))
            #expect(error.message.hasPrefix("unknown key 'extra' in `purchase`"))
        }
    }
}
