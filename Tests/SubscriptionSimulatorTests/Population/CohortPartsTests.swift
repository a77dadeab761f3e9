import Foundation
import Testing

@testable import SubscriptionSimulator

/// `population --jobs N` (issue 27): the subscribers run in contiguous parts on threads of their own, and the outputs
/// are the same for every N, because each subscriber's draws are its own (rule population-per-subscriber-draws).
@Suite struct CohortPartsTests {
    static let configurations: [CohortConfiguration] = {
        var committed = CohortConfiguration(subscribers: 4_001, churn: 0.1, billingFailure: 0.2, grace: 3, seed: 9)
        committed.commitmentShare = 0.3
        return [
            CohortConfiguration(subscribers: 5_000, seed: 1),
            CohortConfiguration(subscribers: 3_333, months: 14, churn: 0.02, billingFailure: 0.3, grace: 0, seed: 8),
            CohortConfiguration(subscribers: 2_000, months: 12, days: 400, grace: 28, seed: 2), committed,
        ]
    }()

    @Test(arguments: configurations)
    func everyNumberOfJobsGivesTheSameOutputs(configuration: CohortConfiguration) throws {
        let one = try CohortSimulation.run(configuration, jobs: 1)
        #expect(one == (try CohortSimulation.run(configuration)))
        for jobs in [2, 3, 7, 64] {
            #expect(try CohortSimulation.run(configuration, jobs: jobs) == one, "--jobs \(jobs)")
        }
        #expect(one.invariants.allSatisfy { $0.holds })
    }

    @Test func moreJobsThanSubscribersRunOnePartEach() throws {
        #expect(CohortSimulation.partition(3, into: 8) == [0..<1, 1..<2, 2..<3])
        #expect(CohortSimulation.partition(10, into: 3) == [0..<3, 3..<6, 6..<10])
        #expect(CohortSimulation.partition(5, into: 1) == [0..<5])
        let configuration = CohortConfiguration(subscribers: 3, seed: 4)
        #expect(try CohortSimulation.run(configuration, jobs: 8) == (try CohortSimulation.run(configuration)))
    }

    @Test func aDrawDependsOnlyOnTheSeedTheSubscriberTheInstantAndThePurpose() {
        let whole = SubscriberDraws(seed: 5, first: 0)
        let part = SubscriberDraws(seed: 5, first: 6)
        let otherSeed = SubscriberDraws(seed: 6, first: 0)
        var seen: Set<Double> = []
        for month in Int64(0)..<12 {
            let instant = month * CohortModel.month
            for purpose in [SubscriberDraws.Purpose.familySize, .churn, .failure, .recoveryDelay] {
                let draw = whole.draw(7, at: instant, purpose)
                #expect(part.draw(1, at: instant, purpose) == draw)  // the same subscriber 7, in a part from 6
                #expect(otherSeed.draw(7, at: instant, purpose) != draw)
                #expect(whole.draw(8, at: instant, purpose) != draw)
                #expect((0..<1).contains(draw))
                seen.insert(draw)
            }
        }
        #expect(seen.count == 48)  // every instant and purpose its own draw
        // Neighbouring subscribers' draws are spread over [0, 1): 10,000 family-size draws, their mean near 1/2.
        let draws = (0..<10_000).map { whole.draw($0, at: 0, .familySize) }
        #expect(Set(draws).count == 10_000)
        #expect(abs(draws.reduce(0, +) / 10_000 - 0.5) < 0.015)  // 5 standard errors (1 / sqrt(12 x 10,000) = 0.0029)
    }

    @Test func progressComesFromEveryPartUpToTheHorizon() throws {
        let reports = LockedReports()
        var created = false
        _ = try CohortSimulation.run(
            CohortConfiguration(subscribers: 900, seed: 3), jobs: 3, created: { created = true },
            progress: { part, reached, events in reports.add(part, reached, events) })
        #expect(created)
        let byPart = Dictionary(grouping: reports.values, by: \.part)
        #expect(byPart.keys.sorted() == [0, 1, 2])
        for (_, values) in byPart {
            #expect(values.map(\.reached) == (1...12).map { Int64($0) * CohortModel.month })
            #expect(values.map(\.events) == values.map(\.events).sorted())
        }
    }
}

/// Progress reports from the parts' threads.
final class LockedReports: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [(part: Int, reached: Int64, events: Int)] = []

    func add(_ part: Int, _ reached: Int64, _ events: Int) { lock.withLock { stored.append((part, reached, events)) } }

    var values: [(part: Int, reached: Int64, events: Int)] { lock.withLock { stored } }
}
