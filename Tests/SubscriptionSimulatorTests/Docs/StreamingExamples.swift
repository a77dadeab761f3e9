// The Swift example of docs/streaming.md, compiled and run. DocExamplesTests checks that every ```swift block of the
// guide appears verbatim between a `docs:begin` and `docs:end` marker in this folder.
import Foundation
import SubscriptionSimulator
import Testing

let streamedScenario = """
    name: Two renewals, streamed
    start: 2026-03-01T09:00:00Z
    seed: 21
    app: { bundleId: com.example.app }
    products:
      - { id: com.example.monthly, type: autoRenewable, group: pro, period: P1M, price: 4.99 }
    timeline:
      - at: 0
        purchase: { customer: alice, product: com.example.monthly }
    until: P2M
    expect:
      - at: P2M
        entitled: { alice: [com.example.monthly] }
    """

// docs:begin streaming-retention
/// Counts the notifications a streamed run hands on.
struct LineCounter: RunSink {
    var lines = 0
    mutating func receive(_ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>) {
        lines += notifications.count
    }
}

@Test func aStreamedRunKeepsOnlyLiveState() throws {
    let scenario = try ScenarioDecoder(file: "renewals.yaml").decode(streamedScenario)
    var sink = LineCounter()
    let run = ScenarioRunner.stream(scenario, retention: .liveState, into: &sink)
    #expect(run.passed && sink.lines == 3 && run.store.notifications.isEmpty)
    #expect(run.store.entitlements(for: "alice") == ["com.example.monthly"])  // live state still answers
}
// docs:end

// docs:begin streaming-background
@Test func aBackgroundSinkWritesTheSameLines() throws {
    let scenario = try ScenarioDecoder(file: "renewals.yaml").decode(streamedScenario)
    var background = BackgroundSink(LineCounter())
    _ = ScenarioRunner.stream(scenario, into: &background)
    let counter = background.finish()  // after its last receive, back on this thread
    #expect(counter.lines == 3)
}
// docs:end
