import Dispatch

/// One run of the cohort model (``CohortModel``) on the Engine's clock (``Instant``, whole milliseconds from t = 0),
/// its monotone queue (``RadixEventQueue``) and seeded random draws per subscriber (``SubscriberDraws``), over
/// all subscribers or one contiguous part of them (``run(_:jobs:progress:)`` runs parts in parallel and adds up their
/// outputs, which do not depend on how many parts there are).
///
/// State is kept as arrays indexed by subscriber (struct of arrays), not an object per subscriber: a status byte,
/// the family size, the instant of the open billing failure and the instant of its planned recovery. Each subscriber
/// has at most one pending event (as its SimPy process has one pending timeout), plus the family event at the start
/// and the month-end snapshots: the queue holds about N events, and a run of N = 1,000,000 fits in well under 100 MB.
///
/// Why the radix queue: the pending set is as large as the population (a binary heap's sift then misses the cache at
/// most of its levels), and the model's clock only moves forward, which is the one thing a radix heap asks for.
/// simbench's `population` section runs both.
///
/// Times are the model's real numbers of days (R1.1) rounded to the millisecond; every decision is taken on the drawn
/// values themselves (a recovery is in grace when the drawn d <= g, R5.3), so rounding only moves instants by less
/// than half a millisecond. Two events of the same millisecond run in the order they were scheduled, except a
/// month-end snapshot, which runs first (priority -1, R1.5).
package struct CohortSimulation {
    package let configuration: CohortConfiguration

    /// The kinds of event, in the low 3 bits of a payload; the subscriber's index above them.
    enum Kind: UInt64 {
        /// R2.3: the family members gain access.
        case familyJoins = 0
        /// R4.2: a renewal instant.
        case renewal = 1
        /// R5.4, R5.5: the grace period ends (GRACE -> RETRY).
        case graceEnds = 2
        /// R5.3: the subscriber fixes their payment during grace.
        case recoveredInGrace = 3
        /// R5.4: the subscriber fixes their payment after grace (or with no grace period).
        case recoveredAfterGrace = 4
        /// R5.5: billing retry is exhausted.
        case retryExhausted = 5
        /// R7.1: a month-end snapshot (the index is the month).
        case monthEnd = 6
    }

    /// R3: the states, in the low bits of the status byte.
    enum Status: UInt8 {
        case active = 0
        case grace = 1
        case retry = 2
        case expired = 3
    }

    /// Set in the status byte once the family members have joined (R2.3).
    static var joinedFlag: UInt8 { 0x80 }

    /// The model's random draws (rule population-per-subscriber-draws).
    let draws: SubscriberDraws
    var queue = RadixEventQueue<UInt64>()
    /// Per subscriber: ``Status`` in the low bits, ``joinedFlag``.
    var status: [UInt8]
    /// Per subscriber: k, the number of family members (R2.2).
    var familySize: [UInt8]
    /// Per subscriber: the instant of the open billing failure (ms), or -1.
    var failureAt: [Int64]
    /// Per subscriber: the instant of the planned recovery after grace (ms), or -1 when it never comes.
    var recoveryAt: [Int64]
    /// Subscribers 0 ..< commitmentCount of this part (the population's first subscribers, counted from its own
    /// first one) are on the commitment plan (``CohortConfiguration/commitmentShare``).
    let commitmentCount: Int
    /// Per commitment subscriber: the current billing period of the commitment, 1 to 12.
    var commitmentPeriod: [UInt8]
    var outputs: CohortOutputs

    /// Creates the N subscribers: draws their family sizes (R2.2, each subscriber's family-size draw) and
    /// schedules the family events, the first renewal instants and the month-end snapshots.
    package init(_ configuration: CohortConfiguration) throws(CohortError) {
        try configuration.validate()
        self.init(validated: configuration, part: 0..<configuration.subscribers)
    }

    /// The subscribers `part` (indices into the population, 0-based) alone, of a valid configuration: their outputs,
    /// added to those of the other parts (``CohortOutputs/adding(_:)``), are the whole population's.
    init(validated configuration: CohortConfiguration, part: Range<Int>) {
        self.configuration = configuration
        let n = part.count
        draws = SubscriberDraws(seed: configuration.seed, first: part.lowerBound)
        status = [UInt8](repeating: Status.active.rawValue, count: n)
        familySize = [UInt8](repeating: 0, count: n)
        failureAt = [Int64](repeating: -1, count: n)
        recoveryAt = [Int64](repeating: -1, count: n)
        let committed = Int((configuration.commitmentShare * Double(configuration.subscribers)).rounded(.down))
        commitmentCount = min(n, max(0, committed - part.lowerBound))
        commitmentPeriod = [UInt8](repeating: 1, count: commitmentCount)
        outputs = CohortOutputs(configuration: configuration)
        outputs.payingMonthEnd = [Int](repeating: 0, count: configuration.months)
        let horizon = configuration.horizon
        for month in 1...configuration.months where Int64(month) * CohortModel.month < horizon {
            queue.schedule(
                UInt64(month) << 3 | Kind.monthEnd.rawValue,
                at: Instant(millisecondsSince1970: Int64(month) * CohortModel.month), priority: -1)
        }
        var members = 0
        for index in 0..<n {
            let k = CohortModel.familySize(draws.draw(index, at: 0, .familySize))
            familySize[index] = UInt8(k)
            members += k
        }
        outputs.familyMembers = members
        // R2.1: every subscriber buys at t = 0; the first paid period [0, 30) is paid (R6.2).
        outputs.paidSubscriberMilliseconds = Int64(n) * min(CohortModel.month, horizon)
        outputs.chargesYearOne = n
        for index in 0..<n {
            if familySize[index] > 0 {
                schedule(index, .familyJoins, at: CohortModel.familyDelay, horizon: horizon)
            }
            schedule(index, .renewal, at: CohortModel.month, horizon: horizon)
        }
    }

    /// Events at or after H are never processed (R1.3), so they are not scheduled at all.
    @inline(__always)
    mutating func schedule(_ index: Int, _ kind: Kind, at instant: Int64, horizon: Int64) {
        if instant < horizon {
            queue.schedule(
                UInt64(truncatingIfNeeded: index) << 3 | kind.rawValue, at: Instant(millisecondsSince1970: instant))
        }
    }

    /// Runs every event before H and returns the outputs (R7). A simulation runs once. `progress` is called at
    /// every month's end with the virtual time reached (milliseconds from the start) and the events run so far
    /// (`simctl population` shows a progress line from it on a terminal).
    package mutating func run(progress: ((_ reached: Int64, _ events: Int) -> Void)? = nil) -> CohortOutputs {
        let horizon = configuration.horizon
        let limit = Instant(millisecondsSince1970: horizon)
        let churn = configuration.churn
        let failure = configuration.billingFailure
        let graceDays = Double(configuration.grace)
        let grace = Int64(configuration.grace) * CohortModel.day
        let yearOne = 365 * CohortModel.day
        var paying = status.count  // this part's subscribers, all paying at t = 0 (R2.1)
        var inGrace = 0
        var inRetry = 0
        var events = 0
        var out = outputs
        while let event = queue.popNext(before: limit) {
            let now = event.instant.millisecondsSince1970
            let index = Int(truncatingIfNeeded: event.payload >> 3)
            switch Kind(rawValue: event.payload & 7)! {
            case .monthEnd:
                out.payingMonthEnd[index - 1] = paying
                out.monitorEvents += 1
                progress?(now, events)
            case .familyJoins:
                events += 1
                status[index] |= Self.joinedFlag
            case .renewal:
                events += 1
                // Commitment plans: the customer's decision to leave takes effect only at the commitment's end (after
                // period 12; reference Appendix E C1-C3), so churn is drawn only there [assumed: with the same c].
                let committed = index < commitmentCount
                let leaves =
                    committed && commitmentPeriod[index] < CohortModel.commitmentPeriods
                    ? false : draws.draw(index, at: now, .churn) < churn
                // R4.2 step 1: voluntary churn (auto-renew was off): no charge, EXPIRED at r.
                if leaves {
                    setStatus(index, .expired)
                    paying -= 1
                    out.voluntaryExpirations += 1
                } else if draws.draw(index, at: now, .failure) < failure {
                    // R4.2 step 2, R5: a billing failure at r, the recovery delay drawn at once (R5.1).
                    paying -= 1
                    out.billingFailures += 1
                    failureAt[index] = now
                    let window = committed ? CohortModel.commitmentRetryWindow : CohortModel.retryWindow
                    if now + window < horizon { out.closedFailures.failures += 1 }
                    let delay = CohortModel.recoveryDelay(draws.draw(index, at: now, .recoveryDelay))
                    let recovery = delay.map { now + Int64(($0 * Double(CohortModel.day)).rounded()) } ?? -1
                    if grace > 0 && !committed {
                        setStatus(index, .grace)
                        inGrace += 1
                        if let delay, delay <= graceDays {
                            schedule(index, .recoveredInGrace, at: recovery, horizon: horizon)  // R5.3
                        } else {
                            recoveryAt[index] = recovery
                            schedule(index, .graceEnds, at: now + grace, horizon: horizon)  // R5.4, R5.5
                        }
                    } else {
                        setStatus(index, .retry)  // R5.2
                        inRetry += 1
                        if delay != nil {
                            schedule(index, .recoveredAfterGrace, at: recovery, horizon: horizon)
                        } else {
                            schedule(index, .retryExhausted, at: now + window, horizon: horizon)
                        }
                    }
                } else {
                    // R4.2 step 3: renewed; paid period [r, r+30) (R6.2).
                    if committed {
                        commitmentPeriod[index] = commitmentPeriod[index] % CohortModel.commitmentPeriods + 1
                    }
                    out.renewals += 1
                    out.paidSubscriberMilliseconds += min(CohortModel.month, horizon - now)
                    if now < yearOne { out.chargesYearOne += 1 }
                    schedule(index, .renewal, at: now + CohortModel.month, horizon: horizon)
                }
            case .graceEnds:
                events += 1
                setStatus(index, .retry)
                inGrace -= 1
                inRetry += 1
                let recovery = recoveryAt[index]
                if recovery >= 0 {
                    schedule(index, .recoveredAfterGrace, at: recovery, horizon: horizon)
                } else {
                    schedule(index, .retryExhausted, at: failureAt[index] + CohortModel.retryWindow, horizon: horizon)
                }
            case .recoveredInGrace:
                // R5.3: back to ACTIVE, billing cycle kept; [r, r+30) paid, grace days included.
                events += 1
                let failed = failureAt[index]
                setStatus(index, .active)
                inGrace -= 1
                paying += 1
                out.recoveredInGrace += 1
                out.paidSubscriberMilliseconds += min(CohortModel.month, horizon - failed)
                if now < yearOne { out.chargesYearOne += 1 }
                if failed + CohortModel.retryWindow < horizon {
                    out.closedFailures.recoveredInGrace += 1
                    out.closedRecoveriesByDay[Self.dayBin(now - failed)] += 1
                }
                schedule(index, .renewal, at: failed + CohortModel.month, horizon: horizon)
            case .recoveredAfterGrace:
                // R5.4: back to ACTIVE with a new billing date s = now; [s, s+30) paid. A commitment's failed period
                // is the one paid now (rule commitment-recovery).
                events += 1
                let failed = failureAt[index]
                let window = index < commitmentCount ? CohortModel.commitmentRetryWindow : CohortModel.retryWindow
                if index < commitmentCount {
                    commitmentPeriod[index] = commitmentPeriod[index] % CohortModel.commitmentPeriods + 1
                }
                setStatus(index, .active)
                inRetry -= 1
                paying += 1
                out.recoveredAfterGrace += 1
                out.paidSubscriberMilliseconds += min(CohortModel.month, horizon - now)
                if now < yearOne { out.chargesYearOne += 1 }
                if failed + window < horizon {
                    out.closedFailures.recoveredAfterGrace += 1
                    out.closedRecoveriesByDay[Self.dayBin(now - failed)] += 1
                }
                schedule(index, .renewal, at: now + CohortModel.month, horizon: horizon)
            case .retryExhausted:
                // R5.5: involuntary expiration at r + 60.
                events += 1
                setStatus(index, .expired)
                inRetry -= 1
                out.involuntaryExpirations += 1
                out.closedFailures.expired += 1
            }
        }
        // R7.1: when 30M = H, the last snapshot is the end state.
        for month in 1...configuration.months where Int64(month) * CohortModel.month >= horizon {
            out.payingMonthEnd[month - 1] = paying
            out.monitorEvents += 1
        }
        out.events = events
        out.payingEnd = paying
        out.inGraceEnd = inGrace
        out.inRetryEnd = inRetry
        // R3.2: entitled people at H-, from the arrays themselves (the counters above are checked against them).
        var entitled = 0
        var active = 0
        for index in status.indices {
            let value = status[index]
            let state = value & 0x7F
            if state == Status.active.rawValue { active += 1 }
            if state == Status.active.rawValue || state == Status.grace.rawValue {
                entitled += 1 + (value & Self.joinedFlag != 0 ? Int(familySize[index]) : 0)
            }
        }
        precondition(active == paying, "paying subscribers counted \(paying), found \(active) in the arrays")
        out.entitledPeopleEnd = entitled
        outputs = out
        return out
    }

    @inline(__always)
    mutating func setStatus(_ index: Int, _ value: Status) {
        status[index] = status[index] & Self.joinedFlag | value.rawValue
    }

    /// The day bin of a recovery delay: (k-1, k] days -> k.
    static func dayBin(_ milliseconds: Int64) -> Int {
        Int(min(60, (milliseconds + CohortModel.day - 1) / CohortModel.day))
    }

    /// Runs one configuration.
    package static func run(_ configuration: CohortConfiguration) throws(CohortError) -> CohortOutputs {
        var simulation = try CohortSimulation(configuration)
        return simulation.run()
    }

    /// Runs one configuration in `jobs` parts (at most one per subscriber), each a contiguous range of subscribers
    /// created and simulated on its own thread (at most `jobs` threads busy; with 1, on the calling thread alone), and
    /// adds their outputs up. Subscribers share nothing in the model and their draws are their own, so the outputs
    /// are the same for every `jobs`. `created` is called on the calling thread once every part has its subscribers
    /// and events, before any runs (R7.7's run_s starts there); `progress` from the parts' threads with the part, the
    /// virtual time it reached and its events so far (at each month's end).
    package static func run(
        _ configuration: CohortConfiguration, jobs: Int, created: () -> Void = {},
        progress: (@Sendable (_ part: Int, _ reached: Int64, _ events: Int) -> Void)? = nil
    ) throws(CohortError) -> CohortOutputs {
        try configuration.validate()
        let parts = partition(configuration.subscribers, into: jobs)
        let simulations = ConcurrentSlots<CohortSimulation>(count: parts.count)
        let outputs = ConcurrentSlots<CohortOutputs>(count: parts.count)
        func eachPart(_ body: @Sendable (Int) -> Void) {
            if parts.count == 1 {
                body(0)
            } else {
                DispatchQueue.concurrentPerform(iterations: parts.count, execute: body)
            }
        }
        eachPart { part in simulations.set(part, CohortSimulation(validated: configuration, part: parts[part])) }
        created()
        eachPart { part in
            var simulation = simulations.take(part)
            outputs.set(part, simulation.run(progress: progress.map { report in { report(part, $0, $1) } }))
        }
        let all = outputs.values
        return all.dropFirst().reduce(all[0]) { $0.adding($1) }
    }

    /// `count` subscribers in `jobs` contiguous parts of sizes differing by at most one (fewer parts than `jobs` when
    /// there are fewer subscribers).
    static func partition(_ count: Int, into jobs: Int) -> [Range<Int>] {
        let parts = max(1, min(jobs, count))
        return (0..<parts).map { part in (count * part / parts)..<(count * (part + 1) / parts) }
    }
}

/// Rule population-per-subscriber-draws: every random draw of the model is a hash of what it is for — the run's seed,
/// the subscriber's index in the whole population, the instant of the event that draws and the purpose of the draw
/// (family size at t = 0; churn, failure and recovery delay at a renewal instant) — mixed by SplitMix64's finaliser
/// (Steele, Lea, Flood 2014) and read as the top 53 bits, in [0, 1). A subscriber draws at most once per purpose at
/// an instant, so no two draws of a run share their inputs. A subscriber's draws depend only on the seed, its index
/// and its own history: never on the others, on the order in which same-instant events run, or on how the population
/// is split into parts (`--jobs`). No state is kept (no memory, no extra cache line per event). The model's R8.1 and
/// R8.2 ask for one generator whose draws follow the event order; R8.3 compares another generator statistically, and
/// CohortStatisticsTests does (20 seeds, every output within 3 standard errors of the SimPy reference).
struct SubscriberDraws {
    /// What a draw decides (R8.2's draws).
    enum Purpose: UInt64 {
        case familySize = 0
        case churn = 1
        case failure = 2
        case recoveryDelay = 3
    }

    /// The seed, mixed.
    let key: UInt64
    /// The index in the whole population of this part's subscriber 0.
    let first: Int

    init(seed: UInt64, first: Int) {
        key = SplitMix64.mix(seed)
        self.first = first
    }

    /// The draw of this part's subscriber `index` for `purpose` at `instant` (milliseconds), uniform in [0, 1).
    @inline(__always)
    func draw(_ index: Int, at instant: Int64, _ purpose: Purpose) -> Double {
        let subscriber = SplitMix64.mix(key &+ UInt64(truncatingIfNeeded: first &+ index) &* SplitMix64.gamma)
        let event = (UInt64(bitPattern: instant) << 2 | purpose.rawValue) &* 0xD1B5_4A32_D192_ED03
        return Double(SplitMix64.mix(subscriber ^ event) >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }
}
