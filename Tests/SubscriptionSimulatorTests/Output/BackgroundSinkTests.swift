import Testing
@testable import SubscriptionSimulator

/// ``BackgroundSink`` (docs/streaming.md): the inner sink, on its own thread, writes the bytes it writes when the run
/// calls it directly, however the output is grouped and however far the run gets ahead.
@Suite struct BackgroundSinkTests {
    /// jsonl, decoded and timeline of a streamed run through a background sink.
    static func streamed(_ scenario: Scenario, batchSize: Int, depth: Int) -> (
        jsonl: String, decoded: String, timeline: String
    ) {
        StreamingRunTests.streamed(scenario) { inner in
            var background = BackgroundSink(inner, batchSize: batchSize, depth: depth)
            _ = ScenarioRunner.stream(scenario, into: &background)
            return background.finish()
        }
    }

    @Test(arguments: ScenarioFilesTests.files.map(\.lastPathComponent))
    func theInnerSinkWritesTheSameBytesInEveryFormat(name: String) throws {
        let scenario = try StreamingRunTests.scenario(name)
        let direct = StreamingRunTests.streamed(scenario)
        // One item at a time with one group waiting (the run waits for the thread at almost every step), and the
        // defaults (groups of 512).
        for (batchSize, depth) in [(1, 1), (512, 4)] {
            let background = Self.streamed(scenario, batchSize: batchSize, depth: depth)
            #expect(background.jsonl == direct.jsonl)
            #expect(background.decoded == direct.decoded)
            #expect(background.timeline == direct.timeline)
        }
    }

    @Test func aLongRunArrivesWholeAndInOrder() throws {
        // 2,000 customers for a year: thousands of groups of 7 with at most two waiting.
        let scenario = try StreamingRunTests.scaleScenario(customers: 2000)
        var direct = StreamingRunTests.Collector()
        _ = ScenarioRunner.stream(scenario, into: &direct)
        var background = BackgroundSink(StreamingRunTests.Collector(), batchSize: 7, depth: 2)
        _ = ScenarioRunner.stream(scenario, into: &background)
        let collected = background.finish()
        #expect(direct.notifications.count > 20_000)
        #expect(collected.notifications == direct.notifications)
        #expect(collected.changes == direct.changes)
    }

    @Test func finishingAnUnusedSinkHandsBackTheInnerSink() {
        var inner = StreamingRunTests.Collector()
        inner.changes = [EntitlementChange(instant: Instant(millisecondsSince1970: 0), customer: "alice", products: [])]
        let background = BackgroundSink(inner)
        #expect(background.finish().changes == inner.changes)
    }
}
