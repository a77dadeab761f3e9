import Testing

@testable import SubscriptionSimulator

/// ``JSONLEncoding``: a ``JSONLSink`` that encodes on two threads writes the bytes of one that encodes on one,
/// however its input is grouped, and hands them on in chunks of at most ``JSONLEncoding/block`` notifications.
@Suite struct JSONLEncodingTests {
    /// The jsonl of `notifications` handed to a sink in groups of the sizes `groups` gives in turn, and the chunks
    /// it wrote.
    static func jsonl(
        _ notifications: [SentNotification], app: AppConfiguration, parallel: Bool, groups: [Int]
    ) -> (text: String, chunks: [[UInt8]]) {
        final class Chunks: @unchecked Sendable { var list: [[UInt8]] = [] }
        let chunks = Chunks()
        var sink = JSONLSink(app: app, signer: UnsignedTestSigner(), parallel: parallel) { chunks.list.append($0) }
        var start = 0
        var turn = 0
        while start < notifications.count {
            let end = min(start + groups[turn % groups.count], notifications.count)
            sink.receive(notifications[start..<end], [])
            start = end
            turn += 1
        }
        sink.finish()
        return (String(decoding: chunks.list.joined(), as: UTF8.self), chunks.list)
    }

    @Test func twoThreadsWriteTheBytesOfOneHoweverTheInputIsGrouped() throws {
        let scenario = try StreamingRunTests.scaleScenario(customers: 300, until: "P4M", coincident: true)
        let notifications = ScenarioRunner.execute(scenario).store.notifications
        #expect(notifications.count > 1000)
        let one = Self.jsonl(notifications, app: scenario.app, parallel: false, groups: [512])
        #expect(one.text.split(separator: "\n").count == notifications.count)
        // Groups below two blocks (encoded on the caller's thread alone), a whole number of blocks, a block and a
        // bit, and groups larger than the run's.
        for groups in [[1, 31, 32, 33, 17, 500], [16], [512], [5000]] {
            let two = Self.jsonl(notifications, app: scenario.app, parallel: true, groups: groups)
            #expect(two.text == one.text, "groups \(groups)")
        }
    }

    @Test func eachChunkHoldsAtMostOneBlock() throws {
        let scenario = try StreamingRunTests.scaleScenario(customers: 100, until: "P4M", coincident: true)
        let notifications = ScenarioRunner.execute(scenario).store.notifications
        let two = Self.jsonl(notifications, app: scenario.app, parallel: true, groups: [notifications.count])
        let lines = two.chunks.map { chunk in chunk.filter { $0 == UInt8(ascii: "\n") }.count }
        #expect(lines.allSatisfy { $0 >= 1 && $0 <= JSONLEncoding.block })
        #expect(lines.reduce(0, +) == notifications.count)
        #expect(two.chunks.count == (notifications.count + JSONLEncoding.block - 1) / JSONLEncoding.block)
    }
}
