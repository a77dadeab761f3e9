/// The cohort model `cohort-v1` (`/work/shared/population/cohort-model.md`, rules R1-R10): a population of monthly
/// subscriptions followed for a year with voluntary churn, billing failures, Apple's 60-day billing retry, an
/// optional billing grace period and Family Sharing. Rule numbers below are the model's.
package enum CohortModel {
    /// The version of the model this code implements.
    package static let version = "cohort-v1"

    /// R1.1: one model day in the Engine's milliseconds.
    package static let day: Int64 = 86_400_000
    /// R1.2: a month is 30 days.
    package static let month: Int64 = 30 * day
    /// R2.3: members gain access one hour after the initial purchase.
    package static let familyDelay: Int64 = day / 24
    /// R5: the billing retry window, 60 days.
    package static let retryWindow: Int64 = 60 * day
    /// Commitment plans (an extension of cohort-v1, issue 29; docs/population.md): a commitment subscriber's billing
    /// retry lasts 90 days and has no grace period (reference Appendix E B1, B2).
    package static let commitmentRetryWindow: Int64 = 90 * day
    /// Commitment plans: 12 monthly periods per commitment (reference Appendix E P6).
    package static let commitmentPeriods: UInt8 = 12
    /// R5: the grace lengths the model allows, in days (0 = no grace period).
    package static let graceLengths = [0, 3, 16, 28]

    /// R2.2: P(k <= 0..4) as the thresholds that, counted below u, give the family size k.
    package static let familyThresholds: [Double] = [0.60, 0.75, 0.85, 0.93, 0.98]

    /// R2.2: the number of thresholds that are <= u (u uniform in [0, 1)).
    @inlinable
    package static func familySize(_ u: Double) -> Int {
        (u >= 0.60 ? 1 : 0) + (u >= 0.75 ? 1 : 0) + (u >= 0.85 ? 1 : 0) + (u >= 0.93 ? 1 : 0) + (u >= 0.98 ? 1 : 0)
    }

    /// R5.1: the recovery delay in days by inversion of the piecewise-linear CDF through (0, 0), (3, 0.40),
    /// (16, 0.75), (28, 0.90), (60, 0.95); nil (never recovers) for u >= 0.95. A drawn delay is always < 60.
    @inlinable
    package static func recoveryDelay(_ u: Double) -> Double? {
        if u < 0.40 { return 3 * u / 0.40 }
        if u < 0.75 { return 3 + 13 * (u - 0.40) / 0.35 }
        if u < 0.90 { return 16 + 12 * (u - 0.75) / 0.15 }
        if u < 0.95 { return 28 + 32 * (u - 0.90) / 0.05 }
        return nil
    }

    /// R5.1 and R7.4: P(d <= days) under the recovery CDF (0.40 at 3, 0.75 at 16, 0.90 at 28, 0.95 at 60).
    package static func recoveredFraction(within days: Double) -> Double {
        let points: [(Double, Double)] = [(0, 0), (3, 0.40), (16, 0.75), (28, 0.90), (60, 0.95)]
        if days <= 0 { return 0 }
        for index in 1..<points.count where days <= points[index].0 {
            let (x0, y0) = points[index - 1]
            let (x1, y1) = points[index]
            return y0 + (y1 - y0) * (days - x0) / (x1 - x0)
        }
        return 0.95
    }

    /// Apple's figures from the retention talk (reference §5.6): the share of billing issues recovered within 3, 16
    /// and 28 days.
    package static let applePoints: [(days: Int, fraction: Double)] = [(3, 0.40), (16, 0.75), (28, 0.90)]

    /// Proceeds rate in a subscriber's first year of paid service (reference §5.6: 70%, 85% after a year).
    package static let yearOneProceedsRate = 0.70
}

/// The parameters of one run (R1.3, R1.4, R2.1, R4.2, R5, R8.1).
package struct CohortConfiguration: Sendable, Equatable {
    /// R2.1: N subscribers.
    package var subscribers: Int
    /// R1.4: M months reported.
    package var months: Int
    /// R1.3: the horizon H in days; nil = max(365, 30M).
    package var days: Double?
    /// R4.2: c, voluntary churn at each renewal.
    package var churn: Double
    /// R4.2: f, billing failure at each renewal charge.
    package var billingFailure: Double
    /// R5: g in days, one of 0 (no grace period), 3, 16, 28.
    package var grace: Int
    /// R8.1: the seed of the one generator.
    package var seed: UInt64
    /// The price of a month, for proceeds (not part of the model; proceeds = charges x price x 70%).
    package var price: Double
    /// The share of subscribers on the monthly plan with a 12-month commitment (an extension of cohort-v1; 0, the
    /// default, is cohort-v1 itself). The first round-down(share x N) subscribers are on it [assumed: chosen without a
    /// draw, so that every other subscriber's draws are unchanged].
    package var commitmentShare: Double = 0

    package init(
        subscribers: Int = 10_000, months: Int = 12, days: Double? = nil, churn: Double = 0.05,
        billingFailure: Double = 0.05, grace: Int = 16, seed: UInt64 = 1, price: Double = 9.99
    ) {
        self.subscribers = subscribers
        self.months = months
        self.days = days
        self.churn = churn
        self.billingFailure = billingFailure
        self.grace = grace
        self.seed = seed
        self.price = price
    }

    /// The most subscribers a run accepts (their index shares a 64-bit payload with the event kind).
    package static let maximumSubscribers = 100_000_000

    /// R1.4: H = `days` if given, else max(365, 30M).
    package var horizonDays: Double { days ?? Double(max(365, 30 * months)) }

    /// The horizon in the Engine's milliseconds.
    package var horizon: Int64 { Int64((horizonDays * Double(CohortModel.day)).rounded()) }

    /// Checks the parameters against the model's rules; the error names the rule.
    package func validate() throws(CohortError) {
        guard (1...Self.maximumSubscribers).contains(subscribers) else {
            throw CohortError(
                "subscribers must be from 1 to \(Self.maximumSubscribers) (R2.1), found \(subscribers)")
        }
        guard months >= 1 else { throw CohortError("months must be at least 1 (R1.4), found \(months)") }
        if let days {
            guard days.isFinite, days > 0, days <= 36_500 else {
                throw CohortError("days must be a number of days from 1 to 36500 (R1.3), found \(days)")
            }
            guard Double(30 * months) <= days else {
                throw CohortError(
                    "30 x months must be <= days (R1.4): \(months) months need at least \(30 * months) days, "
                        + "found \(days)")
            }
        }
        guard months <= 1_200 else { throw CohortError("months must be at most 1200 (R1.4), found \(months)") }
        for (name, value) in [("churn", churn), ("billing failure", billingFailure)] {
            guard value.isFinite, (0...1).contains(value) else {
                throw CohortError("\(name) must be a probability from 0 to 1 (R4.2), found \(value)")
            }
        }
        guard CohortModel.graceLengths.contains(grace) else {
            throw CohortError("grace must be off (0), 3, 16 or 28 days (R5), found \(grace)")
        }
        guard price.isFinite, price >= 0 else { throw CohortError("price must be 0 or more, found \(price)") }
        guard commitmentShare.isFinite, (0...1).contains(commitmentShare) else {
            throw CohortError("commitment share must be a share from 0 to 1, found \(commitmentShare)")
        }
    }
}

/// A configuration the model cannot run, with the rule it breaks.
package struct CohortError: Error, Equatable, Sendable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// R7.4: failures whose outcome is known at the end (r + 60 < H).
package struct ClosedFailures: Sendable, Equatable {
    package var failures = 0
    package var recoveredInGrace = 0
    package var recoveredAfterGrace = 0
    package var expired = 0
}

/// Every output of R7 (timings excepted: the library never reads a clock; the command adds them).
package struct CohortOutputs: Sendable, Equatable {
    package var configuration: CohortConfiguration
    /// R7.1: paying subscribers at 30m, before any event at 30m, m = 1...M.
    package var payingMonthEnd: [Int] = []
    /// R7.2
    package var entitledPeopleEnd = 0
    package var payingEnd = 0
    package var inGraceEnd = 0
    package var inRetryEnd = 0
    /// R7.3
    package var renewals = 0
    package var billingFailures = 0
    package var recoveredInGrace = 0
    package var recoveredAfterGrace = 0
    package var involuntaryExpirations = 0
    package var voluntaryExpirations = 0
    package var familyMembers = 0
    /// R7.4
    package var closedFailures = ClosedFailures()
    /// R7.5, in milliseconds (exact); ``paidSubscriberDays`` in days.
    package var paidSubscriberMilliseconds: Int64 = 0
    /// R7.6
    package var events = 0
    package var monitorEvents = 0
    /// Charges at instants before day 365 (initial purchases, renewals, recoveries): the first year's proceeds.
    package var chargesYearOne = 0
    /// For the recovery curve: closed failures recovered with a delay in (k-1, k] days, k = 0...60 (k = 0: d = 0).
    package var closedRecoveriesByDay = [Int](repeating: 0, count: 61)

    package init(configuration: CohortConfiguration) { self.configuration = configuration }

    /// These outputs and those of another part of the same population (``CohortSimulation/run(_:jobs:progress:)``):
    /// every count and every month's or day's bin added; the month-end snapshots are the same events in every part, so
    /// `monitorEvents` is counted once.
    func adding(_ other: CohortOutputs) -> CohortOutputs {
        precondition(configuration == other.configuration && payingMonthEnd.count == other.payingMonthEnd.count)
        var sum = self
        for month in sum.payingMonthEnd.indices { sum.payingMonthEnd[month] += other.payingMonthEnd[month] }
        sum.entitledPeopleEnd += other.entitledPeopleEnd
        sum.payingEnd += other.payingEnd
        sum.inGraceEnd += other.inGraceEnd
        sum.inRetryEnd += other.inRetryEnd
        sum.renewals += other.renewals
        sum.billingFailures += other.billingFailures
        sum.recoveredInGrace += other.recoveredInGrace
        sum.recoveredAfterGrace += other.recoveredAfterGrace
        sum.involuntaryExpirations += other.involuntaryExpirations
        sum.voluntaryExpirations += other.voluntaryExpirations
        sum.familyMembers += other.familyMembers
        sum.closedFailures.failures += other.closedFailures.failures
        sum.closedFailures.recoveredInGrace += other.closedFailures.recoveredInGrace
        sum.closedFailures.recoveredAfterGrace += other.closedFailures.recoveredAfterGrace
        sum.closedFailures.expired += other.closedFailures.expired
        sum.paidSubscriberMilliseconds += other.paidSubscriberMilliseconds
        sum.events += other.events
        sum.chargesYearOne += other.chargesYearOne
        for day in sum.closedRecoveriesByDay.indices {
            sum.closedRecoveriesByDay[day] += other.closedRecoveriesByDay[day]
        }
        return sum
    }

    /// R7.5: paid subscriber-days.
    package var paidSubscriberDays: Double { Double(paidSubscriberMilliseconds) / Double(CohortModel.day) }

    /// Proceeds at 70% of the price for every charge in year one.
    package var proceedsYearOne: Double {
        Double(chargesYearOne) * configuration.price * CohortModel.yearOneProceedsRate
    }

    /// The invariants of R7, each as (name, holds).
    package var invariants: [(name: String, holds: Bool)] {
        let n = configuration.subscribers
        var checks: [(String, Bool)] = [
            (
                "billing_failures = recovered_in_grace + recovered_after_grace + involuntary_expirations"
                    + " + in_grace_end + in_retry_end",
                billingFailures == recoveredInGrace + recoveredAfterGrace + involuntaryExpirations + inGraceEnd
                    + inRetryEnd
            ),
            (
                "N = paying_end + in_grace_end + in_retry_end + voluntary_expirations + involuntary_expirations",
                n == payingEnd + inGraceEnd + inRetryEnd + voluntaryExpirations + involuntaryExpirations
            ),
            ("paying_month_end[0] = N (R7.1)", payingMonthEnd.first == n),
            (
                "closed_failures.failures = recovered_in_grace + recovered_after_grace + expired (R7.4)",
                closedFailures.failures == closedFailures.recoveredInGrace + closedFailures.recoveredAfterGrace
                    + closedFailures.expired
            ),
        ]
        if configuration.grace == 0 {
            checks.append(("with g = 0, recovered_in_grace = 0", recoveredInGrace == 0))
            checks.append(("with g = 0, in_grace_end = 0", inGraceEnd == 0))
        }
        return checks
    }
}
