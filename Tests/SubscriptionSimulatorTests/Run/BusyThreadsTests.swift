import Foundation
import Testing
@testable import SubscriptionSimulator

/// Rule busy-threads-within-jobs (docs/streaming.md, "Every core, same bytes"): a one-job run under `--jobs N` uses
/// at most N busy threads, and the bytes do not depend on how many it uses.
@Suite struct BusyThreadsTests {
    @Test func aOneJobRunTakesSpareThreadsOnlyWithinItsLimit() {
        var plan = RunPlan(format: .jsonl)
        #expect(plan.spareThreads == 3, "the library's default uses every helper thread")
        for (limit, spare) in [(1, 0), (2, 1), (3, 2), (4, 3), (8, 3)] {
            plan.threadLimit = limit
            #expect(plan.spareThreads == spare, "--jobs \(limit)")
        }
        plan.threadLimit = 0
        #expect(plan.spareThreads == 0, "a limit below one still runs on the calling thread alone")
    }

    /// A scenario with a price change runs as one job; every thread limit writes the same bytes.
    @Test(arguments: [OutputFormat.jsonl, .decoded, .timeline])
    func everyThreadLimitWritesTheSameBytes(format: OutputFormat) throws {
        let url = PackagePaths.scenarios.appendingPathComponent("price-increases.yaml")
        let scenario = try ScenarioFilesTests.decoder("price-increases.yaml").decode(try PackagePaths.read(url))
        #expect(ScenarioPartition(scenario).oneJobReason != nil)
        var outputs: [[UInt8]] = []
        for limit in 1...4 {
            var plan = RunPlan(format: format)
            plan.jobs = limit
            plan.threadLimit = limit
            let bytes = Collected()
            _ = plan.run(scenario) { chunk in bytes.append(chunk) }
            outputs.append(bytes.value)
        }
        #expect(!outputs[0].isEmpty)
        for index in 1..<outputs.count { #expect(outputs[index] == outputs[0], "limit \(index + 1)") }
    }
}

/// Bytes written from whichever thread the run writes on.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: [UInt8] = []

    func append(_ chunk: [UInt8]) {
        lock.lock()
        bytes += chunk
        lock.unlock()
    }

    var value: [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        return bytes
    }
}
