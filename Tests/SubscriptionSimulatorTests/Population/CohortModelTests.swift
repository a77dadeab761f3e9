import Foundation
import Testing

@testable import SubscriptionSimulator

/// The cohort model's own rules and invariants (cohort-v1 §7), exactly, on every run.
@Suite struct CohortModelTests {
    static func run(_ configuration: CohortConfiguration) -> CohortOutputs {
        try! CohortSimulation.run(configuration)
    }

    /// Configurations over every grace length, with and without churn and failures, and a horizon of 30M days.
    static let configurations: [CohortConfiguration] = {
        var list: [CohortConfiguration] = []
        for grace in CohortModel.graceLengths {
            list.append(
                CohortConfiguration(subscribers: 3_000, churn: 0.05, billingFailure: 0.05, grace: grace, seed: 7))
            list.append(
                CohortConfiguration(subscribers: 2_000, churn: 0.02, billingFailure: 0.30, grace: grace, seed: 8))
        }
        list.append(CohortConfiguration(subscribers: 1_000, months: 12, days: 360, grace: 16, seed: 9))
        list.append(CohortConfiguration(subscribers: 1_000, months: 24, churn: 0.1, billingFailure: 0.2, grace: 3))
        list.append(CohortConfiguration(subscribers: 500, months: 3, days: 400, churn: 1, billingFailure: 0, seed: 3))
        list.append(CohortConfiguration(subscribers: 500, churn: 0, billingFailure: 1, grace: 28, seed: 4))
        return list
    }()

    @Test(arguments: configurations)
    func invariantsOfSection7HoldExactly(configuration: CohortConfiguration) {
        let outputs = Self.run(configuration)
        for invariant in outputs.invariants {
            #expect(invariant.holds, "\(invariant.name), seed \(configuration.seed), grace \(configuration.grace)")
        }
        #expect(outputs.payingMonthEnd.count == configuration.months)
        #expect(outputs.monitorEvents == configuration.months)
    }

    @Test(arguments: [0, 3, 16, 28])
    func withoutChurnOrFailureEverySubscriberPaysTheWholeYear(grace: Int) {
        let n = 2_500
        let outputs = Self.run(CohortConfiguration(subscribers: n, churn: 0, billingFailure: 0, grace: grace, seed: 11))
        let draws = SubscriberDraws(seed: 11, first: 0)
        let withFamily = (0..<n).filter { CohortModel.familySize(draws.draw($0, at: 0, .familySize)) > 0 }.count
        #expect(outputs.events == 12 * n + withFamily, "R7.6: 12 renewal instants each, one family event")
        #expect(outputs.entitledPeopleEnd == n + outputs.familyMembers)
        #expect(outputs.paidSubscriberDays == Double(365 * n), "R6.3")
        #expect(outputs.payingMonthEnd == [Int](repeating: n, count: 12))
        #expect(outputs.renewals == 12 * n)
    }

    @Test func theSameSeedGivesTheSameOutputsAndAnotherSeedOthers() {
        let configuration = CohortConfiguration(subscribers: 2_000, seed: 5)
        let first = Self.run(configuration)
        #expect(first == Self.run(configuration), "R8.3")
        var other = configuration
        other.seed = 6
        #expect(first.payingMonthEnd != Self.run(other).payingMonthEnd)
    }

    @Test func whenThirtyMonthsEqualTheHorizonTheLastSnapshotIsTheEndState() {
        let outputs = Self.run(CohortConfiguration(subscribers: 2_000, months: 12, days: 360, seed: 2))
        #expect(outputs.payingMonthEnd[11] == outputs.payingEnd, "R7.1")
    }

    @Test func theFirstMonthEndCountsEverySubscriber() {
        let outputs = Self.run(CohortConfiguration(subscribers: 1_234, churn: 0.5, billingFailure: 0.5, seed: 3))
        #expect(outputs.payingMonthEnd[0] == 1_234, "R7.1: month 1 is always N (snapshot before the renewals at 30)")
    }

    @Test func everyoneChurningLeavesOnlyTheFirstMonthPaid() {
        let n = 700
        let outputs = Self.run(CohortConfiguration(subscribers: n, churn: 1, billingFailure: 0, seed: 1))
        #expect(outputs.voluntaryExpirations == n && outputs.payingEnd == 0 && outputs.entitledPeopleEnd == 0)
        #expect(outputs.paidSubscriberDays == Double(30 * n))
        #expect(Array(outputs.payingMonthEnd.dropFirst()) == [Int](repeating: 0, count: 11))
    }

    /// R7.4: every closed failure of a run where everyone fails at day 30 has its outcome by day 90.
    @Test func closedFailuresAreThoseWhoseRetryWindowEndsBeforeTheHorizon() {
        let outputs = Self.run(CohortConfiguration(subscribers: 4_000, churn: 0, billingFailure: 1, grace: 16, seed: 5))
        // Everyone fails at 30; recoveries in grace keep the cycle and fail again at 60, 90, ...
        #expect(outputs.closedFailures.failures <= outputs.billingFailures)
        #expect(outputs.closedFailures.expired == outputs.involuntaryExpirations, "retry exhaustion is at r + 60 < H")
    }

    @Test func recoveryDelayIsTheInverseOfThePiecewiseLinearCDF() {
        #expect(CohortModel.recoveryDelay(0) == 0)
        #expect(abs(CohortModel.recoveryDelay(0.40)! - 3) < 1e-12)
        #expect(abs(CohortModel.recoveryDelay(0.75)! - 16) < 1e-12)
        #expect(abs(CohortModel.recoveryDelay(0.90)! - 28) < 1e-12)
        #expect(CohortModel.recoveryDelay(0.949_999_999)! < 60)
        #expect(CohortModel.recoveryDelay(0.95) == nil)
        for u in stride(from: 0.0, to: 0.95, by: 0.01) {
            let d = CohortModel.recoveryDelay(u)!
            #expect(abs(CohortModel.recoveredFraction(within: d) - u) < 1e-9, "u \(u)")
        }
    }

    @Test func familySizesFollowTheThresholds() {
        #expect(
            [0, 0.599, 0.60, 0.75, 0.85, 0.93, 0.98, 0.999].map(CohortModel.familySize) == [0, 0, 1, 2, 3, 4, 5, 5])
    }

    @Test func configurationsOutsideTheModelAreErrorsNamingTheRule() {
        let bad: [(CohortConfiguration, String)] = [
            (CohortConfiguration(subscribers: 0), "R2.1"),
            (CohortConfiguration(months: 13, days: 365), "R1.4"),
            (CohortConfiguration(churn: 1.5), "R4.2"),
            (CohortConfiguration(billingFailure: -0.1), "R4.2"),
            (CohortConfiguration(grace: 7), "R5"),
            (CohortConfiguration(days: .nan), "R1.3"),
        ]
        for (configuration, rule) in bad {
            #expect(throws: CohortError.self) { try configuration.validate() }
            do {
                _ = try CohortSimulation(configuration)
                Issue.record("accepted \(configuration)")
            } catch {
                #expect(error.message.contains(rule), "\(error.message)")
            }
        }
    }

    @Test func jsonHasEveryOutputOfSection7UnderItsName() throws {
        let outputs = Self.run(CohortConfiguration(subscribers: 500, seed: 1))
        let text = CohortReport.json(outputs, timings: CohortTimings(wallSeconds: 0.5, runSeconds: 0.25))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let names = [
            "paying_month_end", "entitled_people_end", "paying_end", "in_grace_end", "in_retry_end", "renewals",
            "billing_failures", "recovered_in_grace", "recovered_after_grace", "involuntary_expirations",
            "voluntary_expirations", "family_members", "closed_failures", "paid_subscriber_days", "events",
            "monitor_events", "wall_s", "run_s", "events_per_s",
        ]
        for name in names { #expect(object[name] != nil, "\(name) missing") }
        let closed = try #require(object["closed_failures"] as? [String: Any])
        #expect(Set(closed.keys) == ["failures", "recovered_in_grace", "recovered_after_grace", "expired"])
        #expect(object["events"] as? Int == outputs.events)
        #expect(object["events_per_s"] as? Int == outputs.events * 2)
        #expect(object["model"] as? String == "cohort-v1")
    }

    /// The retention talk (seed 004): 10,000 at 85% and 95% monthly retention end the year with 1,673 and 5,688
    /// (N x r^11, month 12 counted before the renewals at day 360); its 3,487 for 90% is 0.9^10, one month short.
    @Test func expectedMonthTwelveMatchesTheRetentionTalk() {
        func monthTwelve(_ rate: Double, steps: Int = 11) -> Int {
            var value = 10_000.0
            for _ in 0..<steps { value *= rate }
            return Int(value.rounded())
        }
        #expect(monthTwelve(0.85) == 1_673)
        #expect(monthTwelve(0.95) == 5_688)
        #expect(monthTwelve(0.90) == 3_138)
        #expect(monthTwelve(0.90, steps: 10) == 3_487)
        // The simulation agrees with the expectation within 3 standard deviations of a binomial count.
        for rate in [0.85, 0.90, 0.95] {
            let outputs = Self.run(
                CohortConfiguration(subscribers: 10_000, churn: 1 - rate, billingFailure: 0, seed: 4))
            var p = 1.0
            for _ in 0..<11 { p *= rate }
            let sd = (10_000 * p * (1 - p)).squareRoot()
            #expect(abs(Double(outputs.payingMonthEnd[11]) - 10_000 * p) < 3 * sd, "rate \(rate)")
        }
    }
}
