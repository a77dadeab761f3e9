import Testing

@testable import SubscriptionSimulator

/// The commitment share of the cohort (docs/population.md, "Commitment plans"): 0 is cohort-v1 itself; commitment
/// subscribers leave only at a commitment's end, get no grace and 90 days of billing retry (reference Appendix E).
@Suite struct CohortCommitmentTests {
    @Test func aZeroShareIsCohortV1Itself() throws {
        let base = CohortConfiguration(subscribers: 3_000, seed: 7)
        var zero = base
        zero.commitmentShare = 0
        var outputs = try CohortSimulation.run(zero)
        outputs.configuration = base
        #expect(outputs == (try CohortSimulation.run(base)))
        #expect(!CohortReport.configurationJSON(zero, indent: "").contains("commitment"))
    }

    @Test func committedSubscribersLeaveOnlyAtTheCommitmentsEnd() throws {
        var configuration = CohortConfiguration(subscribers: 1_000, months: 13, churn: 1, billingFailure: 0, seed: 3)
        configuration.commitmentShare = 1
        let outputs = try CohortSimulation.run(configuration)
        // Renewals on days 30 .. 330 are periods 2 .. 12; the 12th period ends on day 360, where every one leaves.
        #expect(Array(outputs.payingMonthEnd.prefix(12)) == [Int](repeating: 1_000, count: 12))
        #expect(outputs.payingEnd == 0 && outputs.voluntaryExpirations == 1_000)
        configuration.commitmentShare = 0.25
        let mixed = try CohortSimulation.run(configuration)
        #expect(mixed.payingMonthEnd[1] == 250)  // the others leave at their first renewal, day 30 (churn 1)
    }

    @Test func committedFailuresHaveNoGraceAndNinetyDaysOfRetry() throws {
        // Horizon 100 days: every renewal on day 30 fails; a failure never recovered ends on day 90 with 60 days of
        // retry, but is still retrying on day 100 with 90.
        var configuration = CohortConfiguration(
            subscribers: 2_000, months: 3, days: 100, churn: 0, billingFailure: 1, grace: 16, seed: 5)
        let standard = try CohortSimulation.run(configuration)
        #expect(standard.recoveredInGrace > 0 && standard.involuntaryExpirations > 0)
        configuration.commitmentShare = 1
        let committed = try CohortSimulation.run(configuration)
        #expect(committed.recoveredInGrace == 0 && committed.inGraceEnd == 0)
        #expect(committed.involuntaryExpirations == 0 && committed.inRetryEnd > 0)
        #expect(committed.recoveredAfterGrace > 0)
    }

    @Test func aShareOutsideZeroToOneIsRefused() {
        var configuration = CohortConfiguration()
        configuration.commitmentShare = 1.5
        #expect(throws: CohortError.self) { try configuration.validate() }
    }
}
