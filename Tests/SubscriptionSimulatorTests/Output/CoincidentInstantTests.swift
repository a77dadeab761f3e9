import Foundation
import Testing
@testable import SubscriptionSimulator

/// Issue 27: a streamed run's memory does not follow how many notifications share an instant. When every customer
/// subscribes at the same instant, every renewal of the year coincides; the store hands what one instant sends on in
/// groups (it pauses between two events, `EmissionLog.handOverAt`), and the timeline keeps no instant whole. The
/// output is the same bytes as the finished run's.
@Suite struct CoincidentInstantTests {
    /// Records the largest group a streamed run hands on, and how many notifications in all.
    struct GroupMeter: RunSink {
        var largest = 0
        var notifications = 0
        var calls = 0
        mutating func receive(_ n: ArraySlice<SentNotification>, _ c: ArraySlice<EntitlementChange>) {
            largest = max(largest, n.count + c.count)
            notifications += n.count
            calls += 1
        }
    }

    @Test func anInstantOfManyRenewalsIsHandedOnInGroups() throws {
        let scenario = try StreamingRunTests.scaleScenario(customers: 3000, until: "P3M", coincident: true)
        var meter = GroupMeter()
        let run = ScenarioRunner.stream(scenario, retention: .liveState, into: &meter)
        #expect(run.passed)
        let finished = ScenarioRunner.execute(scenario)
        #expect(meter.notifications == finished.store.notifications.count)
        #expect(meter.notifications > 3 * 3000)
        // 3,000 renewals share each renewal instant; no group holds more than the hand-over size and what one event
        // sends (a notification and an entitlement change or two).
        #expect(meter.largest <= 512 + 4)
        #expect(meter.calls >= meter.notifications / 600)
    }

    @Test func coincidentRunsWriteTheSameBytesStreamedAsFinished() throws {
        let scenario = try StreamingRunTests.scaleScenario(customers: 1500, until: "P4M", coincident: true)
        let run = ScenarioRunner.execute(scenario)
        let streamed = StreamingRunTests.streamed(scenario)
        #expect(streamed.jsonl == RunOutput.jsonl(run, signer: UnsignedTestSigner()))
        #expect(streamed.decoded == RunOutput.decoded(run))
        #expect(streamed.timeline == RunOutput.timeline(run))
    }

    @Test(arguments: [(200, 500, 1 << 20), (64, 64, 2048), (1 << 16, 1 << 20, 4096)])
    func timelineRowsMoveOnInGroupsWithTheSameBytes(notificationGroup: Int, accessGroup: Int, spoolLimit: Int) throws {
        let scenario = try StreamingRunTests.scaleScenario(customers: 400, until: "P3M", coincident: true)
        let run = ScenarioRunner.execute(scenario)
        let bytes = StreamingRunTests.Bytes()
        var sink = TimelineSink(scenario: scenario, spoolLimit: spoolLimit, write: bytes.write)
        sink.notificationGroup = notificationGroup
        sink.accessGroup = accessGroup
        // In groups of 97 notifications (and the changes of the same span), as a streamed run might hand them on.
        let notifications = run.store.notifications
        let changes = run.store.entitlementChanges
        var c = 0
        for start in stride(from: 0, to: notifications.count, by: 97) {
            let end = min(start + 97, notifications.count)
            let until = end == notifications.count ? Instant(millisecondsSince1970: .max) : notifications[end].instant
            var changeEnd = c
            while changeEnd < changes.count && changes[changeEnd].instant < until { changeEnd += 1 }
            sink.receive(notifications[start..<end], changes[c..<changeEnd])
            c = changeEnd
        }
        sink.receive([], changes[c...])
        sink.finish()
        #expect(bytes.text == RunOutput.timeline(run))
    }
}
