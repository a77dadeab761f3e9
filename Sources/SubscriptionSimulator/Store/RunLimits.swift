/// The documented ceilings of one run (docs/scenario-format.md, "Limits"). A run that would pass one stops with
/// ``RunLimitExceeded``, a clear error, instead of running for hours or exhausting memory: every input gets an
/// answer. The defaults hold every realistic scenario by a wide margin; code that embeds the store may raise them.
public struct RunLimits: Hashable, Sendable {
    /// Store events (renewals, ends of grace and retry, family grants, ends of non-renewing terms) one run may
    /// handle. Each event adds at most a few records, so this bounds the run's time and memory.
    public var maximumEvents: Int
    /// Renewals of one subscription (one `originalTransactionId`): 10,000 is 192 years of a weekly subscription,
    /// 833 years of a monthly one.
    public var maximumRenewalsPerSubscription: Int
    /// Customers one scenario may name.
    public var maximumCustomers: Int

    public init(maximumEvents: Int, maximumRenewalsPerSubscription: Int, maximumCustomers: Int) {
        self.maximumEvents = maximumEvents
        self.maximumRenewalsPerSubscription = maximumRenewalsPerSubscription
        self.maximumCustomers = maximumCustomers
    }

    /// 5,000,000 events, 10,000 renewals per subscription, 1,000,000 customers.
    public static let standard = RunLimits(
        maximumEvents: 5_000_000, maximumRenewalsPerSubscription: 10_000, maximumCustomers: 1_000_000)

    /// A streamed run whose store keeps only live state (``StoreRetention/liveState``): its memory no longer grows
    /// with the events handled, so only time bounds them: 200,000,000 events (more than ten times a year of a
    /// million monthly subscribers); the other limits as in ``standard``.
    public static let streaming = RunLimits(
        maximumEvents: 200_000_000, maximumRenewalsPerSubscription: 10_000, maximumCustomers: 1_000_000)
}

/// A run stopped at a limit of ``RunLimits``.
public enum RunLimitExceeded: Error, Hashable, Sendable, CustomStringConvertible {
    case events(limit: Int, at: Instant)
    case renewals(limit: Int, customer: String, productId: String, at: Instant)
    case customers(limit: Int, found: Int)

    public var description: String {
        switch self {
        case .events(let limit, let at):
            return "the run stopped at \(at): it reached the limit of \(limit) store events per run (RunLimits); "
                + "end the run earlier (`until`) or simulate fewer customers"
        case .renewals(let limit, let customer, let productId, let at):
            return "the run stopped at \(at): \(customer)'s subscription to \(productId) reached the limit of "
                + "\(limit) renewals (RunLimits); end the run earlier (`until`)"
        case .customers(let limit, let found):
            return "the scenario names \(found) customers; at most \(limit) are supported in one run (RunLimits)"
        }
    }
}

/// The run limits of a store and what it has counted against them.
///
/// Invariants: `events` counts the store events admitted so far; `renewals[i]` the renewals of chain `i` admitted so
/// far (absent: none); a count passes its limit only on the event that stops the run.
struct RunLimitMeter: Hashable, Sendable {
    /// The ceilings (``RunLimits``).
    var limits = RunLimits.standard
    /// Store events admitted so far.
    private(set) var events = 0
    /// Renewals per subscription chain, by ``ChainID/index`` (grown on demand).
    private(set) var renewals: [Int] = []

    /// Counts one store event; `false` when it passes ``RunLimits/maximumEvents``.
    mutating func countEvent() -> Bool {
        events += 1
        return events <= limits.maximumEvents
    }

    /// Counts one renewal of chain `index`; `false` when it passes ``RunLimits/maximumRenewalsPerSubscription``.
    mutating func countRenewal(ofChainAt index: Int) -> Bool {
        if renewals.count <= index { renewals.append(contentsOf: repeatElement(0, count: index + 1 - renewals.count)) }
        renewals[index] += 1
        return renewals[index] <= limits.maximumRenewalsPerSubscription
    }
}

extension SimulatedStore {
    /// The hook ``advance(to:)`` calls before it handles each store event: counts the event and refuses it when it
    /// would pass a limit. Customers are checked when the run starts (``ScenarioRunner``).
    mutating func admit(_ event: ScheduledEvent<StoreEvent>) throws(StoreError) {
        if !runLimits.countEvent() {
            throw .runLimit(.events(limit: limits.maximumEvents, at: event.instant))
        }
        guard case .lifecycle(let key, .renewal) = event.payload else { return }
        if !runLimits.countRenewal(ofChainAt: key.index) {
            let chain = subscriptionBook.chains[key.index]
            throw .runLimit(
                .renewals(
                    limit: limits.maximumRenewalsPerSubscription, customer: chain.customer,
                    productId: chain.state.productId, at: event.instant))
        }
    }
}
