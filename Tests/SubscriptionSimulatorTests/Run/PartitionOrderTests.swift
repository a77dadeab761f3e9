import Foundation
import Testing
@testable import SubscriptionSimulator

/// Rule partition-order (issue 27, "Every core, same bytes"; Run/Parts/ScenarioPartition.swift): a run's records merged
/// from its parts by key are the one-job run's records, and each part's records are exactly the one-job run's
/// records of its families.
@Suite struct PartitionOrderTests {
    /// Each notification as its `decoded` line (what every output writes of it; the store's own bookkeeping, such as
    /// the modification order the Server API sorts by, is not output and is counted per store).
    static func lines(_ notifications: [SentNotification], app: AppConfiguration) -> [String] {
        let bytes = StreamingRunTests.Bytes()
        var sink = DecodedSink(app: app, write: bytes.write)
        sink.receive(notifications[...], [])
        sink.finish()
        return bytes.text.split(separator: "\n").map(String.init)
    }

    static func checkParts(_ scenario: Scenario, counts: ClosedRange<Int> = 1...4) {
        let wholeRun = ScenarioRunner.execute(scenario)
        let whole = (notifications: wholeRun.store.notifications, changes: wholeRun.store.entitlementChanges)
        let partition = ScenarioPartition(scenario)
        for count in counts {
            var parts: [KeyedRecords] = []
            for index in 0..<count {
                let part = RunPart(index: index, count: count)
                let (records, run) = ScenarioRunner.runPart(scenario, part: part)
                checkStore(run.store, of: part, scenario, partition: partition, whole: wholeRun.store)
                // Keys never go down within a part.
                #expect(zip(records.notificationKeys, records.notificationKeys.dropFirst()).allSatisfy { $0 <= $1 })
                #expect(zip(records.changeKeys, records.changeKeys.dropFirst()).allSatisfy { $0 <= $1 })
                // Exactly the one-job records of the part's families.
                #expect(
                    lines(records.notifications, app: scenario.app)
                        == lines(
                            whole.notifications.filter { partition.part(part, holds: $0.recipient) }, app: scenario.app),
                    "\(scenario.file) part \(part): notifications")
                #expect(
                    records.changes == whole.changes.filter { partition.part(part, holds: $0.customer) },
                    "\(scenario.file) part \(part): entitlement changes")
                parts.append(records)
            }
            let merged = KeyedRecords.merged(parts)
            #expect(
                lines(merged.notifications, app: scenario.app) == lines(whole.notifications, app: scenario.app),
                "\(scenario.file): \(count) parts merged")
            #expect(merged.changes == whole.changes, "\(scenario.file): \(count) parts merged")
        }
    }

    /// A part's store holds only the part's customers (issue 27), in the scenario's order, each with the ids of their
    /// place in the scenario (rule ids-per-customer): the one-job run's `appTransactionId`; the family only in the
    /// part that holds it.
    static func checkStore(
        _ store: SimulatedStore, of part: RunPart, _ scenario: Scenario, partition: ScenarioPartition,
        whole: SimulatedStore
    ) {
        let own = scenario.customers.indices.filter { partition.part(part, holds: scenario.customers[$0]) }
        #expect(store.customers == own.map { scenario.customers[$0] }, "\(scenario.file) part \(part): customers")
        #expect(store.directory.records.map { Int($0.idPosition) } == own, "\(scenario.file) part \(part): ids")
        #expect(store.directory.isConsistent)
        #expect(
            store.customers.map { store.appTransactionId(of: $0) }
                == store.customers.map { whole.appTransactionId(of: $0) },
            "\(scenario.file) part \(part): appTransactionId")
        #expect(
            store.families.isEmpty == !(scenario.family.map { partition.part(part, holds: $0.organizer) } ?? false),
            "\(scenario.file) part \(part): family")
    }

    @Test(arguments: ScenarioFilesTests.files.map(\.lastPathComponent))
    func mergedPartsAreTheOneJobRun(name: String) throws {
        let scenario = try StreamingRunTests.scenario(name)
        guard ScenarioPartition(scenario).isPartitioned else {
            // One job: part 0 holds everything, the others nothing.
            let (records, _) = ScenarioRunner.runPart(scenario, part: RunPart(index: 1, count: 2))
            #expect(records.notifications.isEmpty && records.changes.isEmpty)
            return
        }
        Self.checkParts(scenario)
    }

    @Test(arguments: [false, true])
    func mergedPartsOfTheScaleScenarioAreTheOneJobRun(coincident: Bool) throws {
        let scenario = try StreamingRunTests.scaleScenario(customers: 200, until: "P4M", coincident: coincident)
        #expect(ScenarioPartition(scenario).isPartitioned)
        Self.checkParts(scenario, counts: 1...3)
    }

    @Test func familiesStayTogetherAndCustomersAreDealtRoundRobin() throws {
        let scenario = try ScenarioDecoder(file: "family.yaml").decode(
            """
            name: families
            start: 2026-01-01T00:00:00Z
            app: { bundleId: com.example.app, appAppleId: 1 }
            products:
              - { id: com.example.monthly, type: autoRenewable, group: g, period: P1M, price: 9.99, familyShareable: true }
            family:
              organizer: olivia
              members: [max]
            timeline:
              - at: 0
                purchase: { customer: ann, product: com.example.monthly }
              - at: 0
                purchase: { customer: olivia, product: com.example.monthly }
              - at: 0
                purchase: { customer: bob, product: com.example.monthly }
              - at: 1d
                joinFamily: { customer: bob }
            until: P3M
            """)
        let partition = ScenarioPartition(scenario)
        #expect(partition.isPartitioned)
        // olivia, max and bob (who joins) are one family, ordinal 0; ann is her own.
        let ordinals = scenario.customers.map { partition.familyOrdinal(of: $0) }
        let ann = scenario.customers.firstIndex(of: "ann")!
        #expect(partition.familyCount == 2)
        #expect(partition.familyOrdinal(of: "olivia") == 0 && partition.familyOrdinal(of: "bob") == 0)
        #expect(ordinals[ann] == UInt32(ann))
        let two = RunPart(index: 1, count: 2)
        #expect(partition.part(two, holds: "ann") && !partition.part(two, holds: "max"))
        Self.checkParts(scenario)
    }

    /// The rotated blocks: each block of `count` places gives one family to each part (so the parts' family counts
    /// differ by at most one), and a pattern with a period in the customers' order is spread over the parts (with
    /// round robin, every 10th place, as the scale scenario's cancellations and failing cards, all went to one part
    /// of two).
    @Test func rotatedBlocksBalanceThePartsAndSpreadPeriodicPatterns() {
        for count in 1...5 {
            for block in 0..<200 {
                let parts = (0..<count).map { ScenarioPartition.partIndex(ofPlace: block * count + $0, count: count) }
                #expect(parts.sorted() == Array(0..<count), "block \(block) of \(count) parts: \(parts)")
            }
        }
        for count in [2, 4] {
            var perPart = [Int](repeating: 0, count: count)
            for place in stride(from: 0, to: 20_000, by: 10) {
                perPart[ScenarioPartition.partIndex(ofPlace: place, count: count)] += 1
            }
            let even = 2_000 / count
            #expect(
                perPart.allSatisfy { abs($0 - even) <= even / 5 }, "every 10th place over \(count) parts: \(perPart)")
        }
        // Not round robin: some block is rotated.
        #expect((0..<100).contains { ScenarioPartition.partIndex(ofPlace: $0, count: 2) != $0 % 2 })
    }

    @Test func aStoreWideActionRunsAsOneJob() throws {
        let scenario = try StreamingRunTests.scenario("price-increase-notice.yaml")
        let partition = ScenarioPartition(scenario)
        #expect(!partition.isPartitioned)
        #expect(partition.oneJobReason?.contains("raisePrice") == true)
    }
}
