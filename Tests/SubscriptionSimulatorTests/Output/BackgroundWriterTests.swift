import Foundation
import Testing
@testable import SubscriptionSimulator

/// ``BackgroundWriter``: chunks reach the destination in order, each once, on the writer's thread; a slow destination
/// holds the caller back once `depth` chunks wait (bounded memory), and ``BackgroundWriter/finish()`` returns only
/// when everything is written.
@Suite struct BackgroundWriterTests {
    /// What the destination saw, and the most chunks that waited at once.
    final class Destination: @unchecked Sendable {
        let lock = NSLock()
        var bytes: [UInt8] = []
        var chunks = 0
        var queued = 0
        var mostQueued = 0
        let delay: UInt32

        init(delay: UInt32) { self.delay = delay }

        func queue() {
            lock.lock()
            queued += 1
            mostQueued = max(mostQueued, queued)
            lock.unlock()
        }

        func write(_ chunk: [UInt8]) {
            if delay > 0 { usleep(delay) }
            lock.lock()
            bytes += chunk
            chunks += 1
            queued -= 1
            lock.unlock()
        }
    }

    @Test(arguments: [(1, UInt32(200)), (4, UInt32(0)), (16, UInt32(50))])
    func chunksArriveInOrderOnceEach(depth: Int, delay: UInt32) {
        let destination = Destination(delay: delay)
        let writer = BackgroundWriter(depth: depth) { destination.write($0) }
        var expected: [UInt8] = []
        for index in 0..<300 {
            let chunk = (0..<(index % 7 + 1)).map { UInt8(truncatingIfNeeded: index &* 31 &+ $0) }
            expected += chunk
            destination.queue()
            writer.write(chunk)
        }
        writer.write([])  // nothing to write: not handed on
        writer.finish()
        #expect(destination.bytes == expected)
        #expect(destination.chunks == 300)
        // At most `depth` wait in the queue, at most `depth` more were taken by the thread (half a queue or more at
        // a time) and are being written, and one is on its way in.
        #expect(destination.mostQueued <= 2 * depth + 1)
    }

    @Test func aRunPlanWritesTheSameBytesThroughItsWriter() throws {
        // RunPlan puts a BackgroundWriter before `write`: same bytes as the sinks write directly.
        let scenario = try StreamingRunTests.scaleScenario(customers: 200, until: "P3M", coincident: true)
        let direct = StreamingRunTests.streamed(scenario)
        for format in [OutputFormat.jsonl, .decoded] {
            let bytes = StreamingRunTests.Bytes()
            let plan = RunPlan(format: format, signer: UnsignedTestSigner())
            let verdict = plan.run(scenario, write: bytes.write)
            #expect(verdict.run.passed)
            #expect(bytes.text == (format == .jsonl ? direct.jsonl : direct.decoded))
        }
    }

    @Test func aRunPlanReportsProgressAndFinishes() throws {
        let scenario = try StreamingRunTests.scaleScenario(customers: 1500, until: "P6M", coincident: true)
        final class Reports: @unchecked Sendable { var list: [RunProgress] = [] }
        let reports = Reports()
        var plan = RunPlan(format: .jsonl, signer: UnsignedTestSigner())
        plan.progress = { reports.list.append($0) }
        let verdict = plan.run(scenario, write: { _ in })
        let counted = ScenarioRunner.execute(scenario).store.notifications.count
        #expect(verdict.run.passed)
        #expect(reports.list.count >= 2)
        #expect(reports.list.last?.finished == true)
        #expect(reports.list.dropLast().allSatisfy { !$0.finished })
        #expect(reports.list.last?.notifications == counted)
        #expect(reports.list.allSatisfy { $0.customers == 1500 })
        // Counts and instants never go back.
        #expect(zip(reports.list, reports.list.dropFirst()).allSatisfy { $0.notifications <= $1.notifications })
        #expect(zip(reports.list, reports.list.dropFirst()).allSatisfy { $0.instant <= $1.instant })
    }
}
