import Foundation
import Testing

@testable import SubscriptionSimulator

/// Results equal in expectation to the SimPy reference (cohort-v1 §9): N = 10,000, seeds 1-20, every output's mean
/// within 3 standard errors of the reference mean. Fixed seeds, so the test is deterministic; the two generators
/// differ (R8.3), so the comparison is statistical, not draw for draw.
@Suite struct CohortStatisticsTests {
    struct Statistic {
        var name: String
        var referenceMean: Double
        var referenceSD: Double
        var value: (CohortOutputs) -> Double
    }

    static func statistics() throws -> [Statistic] {
        let url = PackagePaths.golden.appendingPathComponent("Population/reference-standard.json")
        let root = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        #expect(root["model"] as? String == CohortModel.version)
        let stats = try #require(root["stats"] as? [String: Any])
        func pair(_ object: Any?) throws -> (Double, Double) {
            let entry = try #require(object as? [String: Any])
            return (try #require(entry["mean"] as? Double), try #require(entry["sd"] as? Double))
        }
        let scalars: [(String, (CohortOutputs) -> Double)] = [
            ("entitled_people_end", { Double($0.entitledPeopleEnd) }),
            ("paying_end", { Double($0.payingEnd) }),
            ("in_grace_end", { Double($0.inGraceEnd) }),
            ("in_retry_end", { Double($0.inRetryEnd) }),
            ("family_members", { Double($0.familyMembers) }),
            ("renewals", { Double($0.renewals) }),
            ("billing_failures", { Double($0.billingFailures) }),
            ("recovered_in_grace", { Double($0.recoveredInGrace) }),
            ("recovered_after_grace", { Double($0.recoveredAfterGrace) }),
            ("involuntary_expirations", { Double($0.involuntaryExpirations) }),
            ("voluntary_expirations", { Double($0.voluntaryExpirations) }),
            ("paid_subscriber_days", { $0.paidSubscriberDays }),
            ("events", { Double($0.events) }),
        ]
        var list: [Statistic] = []
        for (name, value) in scalars {
            let (mean, sd) = try pair(stats[name])
            list.append(Statistic(name: name, referenceMean: mean, referenceSD: sd, value: value))
        }
        let months = try #require(stats["paying_month_end"] as? [String: Any])
        let means = try #require(months["mean"] as? [Double])
        let sds = try #require(months["sd"] as? [Double])
        for month in means.indices {
            list.append(
                Statistic(
                    name: "paying_month_end[\(month)]", referenceMean: means[month], referenceSD: sds[month],
                    value: { Double($0.payingMonthEnd[month]) }))
        }
        let closed = try #require(stats["closed_failures"] as? [String: Any])
        let closedFields: [(String, (CohortOutputs) -> Double)] = [
            ("failures", { Double($0.closedFailures.failures) }),
            ("recovered_in_grace", { Double($0.closedFailures.recoveredInGrace) }),
            ("recovered_after_grace", { Double($0.closedFailures.recoveredAfterGrace) }),
            ("expired", { Double($0.closedFailures.expired) }),
        ]
        for (name, value) in closedFields {
            let (mean, sd) = try pair(closed[name])
            list.append(
                Statistic(name: "closed_failures.\(name)", referenceMean: mean, referenceSD: sd, value: value))
        }
        return list
    }

    /// The 20 runs of the standard configuration at N = 10,000, two at a time (the CI machine has two cores).
    static func runs() -> [CohortOutputs] {
        let seeds = Array(UInt64(1)...20)
        let results = Results(count: seeds.count)
        DispatchQueue.concurrentPerform(iterations: seeds.count) { index in
            let configuration = CohortConfiguration(
                subscribers: 10_000, months: 12, churn: 0.05, billingFailure: 0.05, grace: 16, seed: seeds[index])
            results.set(index, try! CohortSimulation.run(configuration))
        }
        return results.values
    }

    final class Results: @unchecked Sendable {
        // Safe: each index is written by one iteration, and read after all have ended.
        private var storage: [CohortOutputs?]
        private let lock = NSLock()
        init(count: Int) { storage = Array(repeating: nil, count: count) }
        func set(_ index: Int, _ value: CohortOutputs) {
            lock.lock()
            storage[index] = value
            lock.unlock()
        }
        var values: [CohortOutputs] { storage.map { $0! } }
    }

    @Test func everyOutputsMeanOverTwentySeedsIsWithinThreeStandardErrorsOfTheReference() throws {
        let statistics = try Self.statistics()
        #expect(statistics.count == 13 + 12 + 4, "every output of the reference file is compared")
        let runs = Self.runs()
        let k = Double(runs.count)
        for statistic in statistics {
            let values = runs.map(statistic.value)
            let mean = values.reduce(0, +) / k
            let variance = values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / (k - 1)
            if statistic.referenceSD == 0 {
                #expect(mean == statistic.referenceMean && variance == 0, "\(statistic.name): a constant")
                continue
            }
            // The standard error of the difference of two means of k runs each.
            let standardError = ((statistic.referenceSD * statistic.referenceSD + variance) / k).squareRoot()
            let z = (mean - statistic.referenceMean) / standardError
            #expect(
                abs(z) <= 3,
                "\(statistic.name): mean \(mean) over seeds 1-20, reference \(statistic.referenceMean), z = \(z)")
            // Spread comparable too: a run-to-run sd within a factor of 2 of the reference's.
            let sd = variance.squareRoot()
            #expect(sd > statistic.referenceSD / 2 && sd < statistic.referenceSD * 2, "\(statistic.name): sd \(sd)")
        }
    }

    /// R7.4: for closed failures, the fractions recovered in grace, after grace, and expired approach P(d <= g),
    /// 0.95 - P(d <= g) and 0.05, for every grace length (pooled over 2 seeds at N = 10,000, about 7,500 closed
    /// failures, within 4 binomial standard errors).
    @Test(arguments: CohortModel.graceLengths)
    func closedFailureFractionsFollowTheRecoveryCurve(grace: Int) {
        var closed = ClosedFailures()
        for seed in UInt64(1)...2 {
            let o = try! CohortSimulation.run(
                CohortConfiguration(subscribers: 10_000, churn: 0.05, billingFailure: 0.05, grace: grace, seed: seed))
            closed.failures += o.closedFailures.failures
            closed.recoveredInGrace += o.closedFailures.recoveredInGrace
            closed.recoveredAfterGrace += o.closedFailures.recoveredAfterGrace
            closed.expired += o.closedFailures.expired
        }
        let n = Double(closed.failures)
        let inGrace = CohortModel.recoveredFraction(within: Double(grace))
        for (count, p, name) in [
            (closed.recoveredInGrace, inGrace, "in grace"), (closed.recoveredAfterGrace, 0.95 - inGrace, "after grace"),
            (closed.expired, 0.05, "expired"),
        ] {
            let se = (p * (1 - p) / n).squareRoot()
            #expect(abs(Double(count) / n - p) <= 4 * max(se, 1e-12), "grace \(grace), \(name): \(count) of \(n)")
        }
    }
}
