import Foundation
import Testing
@testable import SubscriptionSimulator

/// A part of a run in parts (`PartitionedRun`, docs/streaming.md "Every core, same bytes") encodes its lines into
/// batches of its own and works on its own copies of the strings every record carries.
@Suite struct PartSinkTests {
    static let scenarioText = """
        name: Forty customers renewing together
        start: 2026-03-01T09:00:00Z
        seed: 5
        app: { bundleId: com.example.part.sink.app, environment: Sandbox }
        products:
          - { id: com.example.part.sink.monthly, type: autoRenewable, group: part sink pro, period: P1M, price: 4.99 }
        timeline:
        \((0..<40).map { "  - { at: 0, purchase: { customer: c\($0), product: com.example.part.sink.monthly } }" }
            .joined(separator: "\n"))
        until: P4M
        """

    /// The run's notifications, one job, kept in the store.
    static func notifications() throws -> (Scenario, [SentNotification]) {
        let scenario = try ScenarioDecoder(file: "part-sink.yaml").decode(scenarioText)
        let run = try ScenarioRunner.run(scenario)
        #expect(run.passed)
        return (scenario, run.store.notifications)
    }

    /// The base address of a string's UTF-8 storage (`nil` when the string is stored in itself).
    static func storage(of text: String) -> UnsafeRawPointer? {
        var copy = text
        return copy.withUTF8 { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func aPartsCatalogueAndAppAreEqualButShareNoStrings() throws {
        let (scenario, _) = try Self.notifications()
        let catalog = scenario.catalog.inOwnStorage()
        let app = scenario.app.inOwnStorage()
        #expect(catalog == scenario.catalog && app == scenario.app)
        let id = try #require(catalog.products.first?.id)
        let original = try #require(scenario.catalog.products.first?.id)
        #expect(id.utf8.count > 15, "stored out of line, so that there is storage to share")
        #expect(Self.storage(of: id) != Self.storage(of: original))
        #expect(Self.storage(of: app.bundleId) != Self.storage(of: scenario.app.bundleId))
        #expect(catalog.index(of: original) == 0 && catalog[original] == scenario.catalog[original])
        #expect("short".inOwnStorage == "short" && "".inOwnStorage.isEmpty)
    }

    /// A group whose lines do not fit the batch's room goes into a batch of its own, with room for every line
    /// reserved before the first is encoded: the batches hold the one-job lines, in order, each line whole.
    @Test func aGroupThatDoesNotFitStartsABatchWithRoomForItsLines() throws {
        let (scenario, notifications) = try Self.notifications()
        let encoder = NotificationEncoder(app: scenario.app)
        let lines = PartitionedRun.Lines.jsonl(encoder, JWSSigning(encoder.signer)).inOwnStorage()
        var expected: [UInt8] = []
        var ends: [Int] = []
        var buffers = NotificationEncoder.Buffers()
        lines.appendLines(of: notifications, to: &expected, lineEnds: &ends, buffers: &buffers)
        #expect(expected.count > 2 * PartitionedRun.batchBytes, "more than two batches of lines")
        let queue = Handoff<PartitionedRun.Batch>()
        var sink = PartitionedRun.PartSink(lines: lines, keepValues: false, queue: queue, spare: Handoff())
        var changes: [EntitlementChange] = []
        var cuts = 0
        // Groups of about a third of a batch: the batch is handed on only once it holds 256 KB, so some group finds
        // one partly filled, with less room than its lines need.
        let size = max(1, PartitionedRun.batchBytes / 3 / (expected.count / notifications.count))
        for (index, start) in stride(from: 0, to: notifications.count, by: size).enumerated() {
            var group = Array(notifications[start..<min(start + size, notifications.count)])
            let keys = group.indices.map { RecordKey(segment: 0, instant: Int64(index), family: UInt32($0)) }
            let room = sink.batch.bytes.count + group.count * sink.lineBytes
            let cut = room > sink.batch.bytes.capacity && sink.batch.recordCount > 0
            if cut { cuts += 1 }
            let capacity = sink.batch.bytes.capacity
            sink.receive(taking: &group, keys: keys, &changes, keys: [], frontier: keys.last!)
            if cut {
                #expect(sink.batch.notificationKeys == keys, "the group starts a batch of its own")
            } else if index > 0 && sink.batch.recordCount > keys.count {
                #expect(sink.batch.bytes.capacity == capacity, "the group fitted the room it had")
            }
            #expect(sink.lineBytes > 0)
        }
        #expect(cuts > 0)
        sink.finish(cut: nil)
        var joined: [UInt8] = []
        var count = 0
        var batches = 0
        while let batch = queue.take() {
            batches += 1
            var start = 0
            for end in batch.lineEnds {
                #expect(end > start && batch.bytes[end - 1] == UInt8(ascii: "\n"), "each line whole, in one batch")
                start = end
            }
            #expect(start == batch.bytes.count)
            joined += batch.bytes
            count += batch.notificationKeys.count
        }
        #expect(batches > 2 && count == notifications.count && joined == expected)
    }
}
