/// One price increase with a start date (`raisePrice` with `effective`; `Lifecycle/PriceIncreaseRules.swift`).
public struct ScheduledPriceIncrease: Hashable, Sendable {
    public var productId: String
    /// The storefront (ISO 3166-1 alpha-3) whose own price is raised, or `nil` for the product's base price (every
    /// storefront of its currency).
    public var storefront: String?
    public var oldPrice: Price
    public var newPrice: Price
    /// When it was scheduled (the action's instant) and when it starts (new purchases pay `newPrice` from then on).
    public var scheduledAt: Instant
    public var effective: Instant
    /// Whether subscribers must consent: stated, or worked out by rules price-increase-consent-threshold and
    /// price-increase-once-a-year.
    public var needsConsent: Bool
    /// The billing plan whose price rises: the product's own (up-front) price, or its monthly plan's (rule
    /// commitment-price-increase-at-commitment-renewal).
    public var plan: BillingPlan = .upfront
    /// Whether the start date has passed (the catalogue holds `newPrice`).
    public var started = false
}

/// The store's price increases with a start date, and when each product last rose without consent: the rules of when
/// an increase may be scheduled, whether its subscribers must consent, and when each is told.
///
/// Invariants (``isConsistent``): at most one increase not yet started per product, storefront scope and plan (rule
/// one-scheduled-price-change); `upcoming` is the number of increases not started; `told` and `sent` have one entry per
/// increase; an increase's subscribers are each told once (`told`).
///
/// Held in an array of at most one ``Parts``, empty until a scenario raises a price: a store that never does carries
/// one word for it (the store is copied and moved whole; callgrind per lifecycle).
struct PriceIncreaseSchedule: Hashable, Sendable {
    struct Parts: Hashable, Sendable {
        fileprivate(set) var increases: [ScheduledPriceIncrease] = []
        /// Per increase, the chains (``ChainID/index``) whose notice is scheduled or sent.
        fileprivate(set) var told: [Set<Int>] = []
        /// Per increase, the `originalTransactionId`s of the subscriptions told of it (their renewal info shows the
        /// new price before it starts).
        fileprivate(set) var sent: [Set<String>] = []
        /// How many increases have not started yet.
        fileprivate(set) var upcoming = 0
        /// Per product and scope (``PriceIncreaseSchedule/scopeKey(_:_:plan:)``), the start of the last increase
        /// without consent (rule price-increase-once-a-year).
        fileprivate(set) var lastWithoutConsent: [String: Instant] = [:]
    }

    private var storage: [Parts] = []

    /// The schedule, read.
    var parts: Parts { storage.first ?? Parts() }

    /// The schedule, changed; changing it makes its storage.
    private var stored: Parts {
        get { storage.first ?? Parts() }
        _modify {
            if storage.isEmpty { storage.append(Parts()) }
            yield &storage[0]
        }
    }

    /// How many increases have not started yet: the renewal info of a subscriber told before the start date shows
    /// the new price (read only while this is not zero).
    var upcoming: Int { storage.isEmpty ? 0 : storage[0].upcoming }

    /// The scope of an increase: its storefront, or the product's currency for its base price; the monthly plan's
    /// price is a scope of its own.
    static func scopeKey(_ productId: String, _ scope: String, plan: BillingPlan = .upfront) -> String {
        plan == .upfront ? productId + " " + scope : productId + " " + scope + " monthly"
    }

    // MARK: - Rules of scheduling

    /// Rule **one-scheduled-price-change**: refused while an increase with a start date waits to start for the same
    /// product, storefront and plan (Apple: "you can schedule one future price change at a time, per country or
    /// region"; a second one overwrites the first — the simulator refuses instead [assumed]).
    func refuseSecondScheduledChange(_ target: PriceTarget) throws(StoreError) {
        guard upcoming > 0 else { return }
        for increase in parts.increases
        where !increase.started && increase.productId == target.productId && increase.storefront == target.storefront
            && increase.plan == target.plan
        {
            throw .priceIncreaseSchedule(
                productId: target.productId, rule: "one-scheduled-price-change",
                "an increase to \(increase.newPrice) \(target.currency) is already scheduled to start at "
                    + "\(increase.effective); App Store Connect holds one future price change per storefront")
        }
    }

    /// Rule **price-increase-notice-lead**: a start date before `now`, or less than ``PriceIncreaseRules/noticeLead``
    /// after it, is refused: every subscriber is then told the full lead before paying more.
    static func checkNoticeLead(of productId: String, effective: Instant, at now: Instant) throws(StoreError) {
        let earliest = now.adding(PriceIncreaseRules.noticeLead)
        guard effective >= earliest else {
            let problem =
                effective < now
                ? "the start date \(effective) is before \(now), the instant the increase is scheduled at"
                : "the start date \(effective) is less than \(PriceIncreaseRules.noticeLeadDays) days after \(now), the "
                    + "instant the increase is scheduled at"
            throw .priceIncreaseSchedule(
                productId: productId, rule: "price-increase-notice-lead",
                problem
                    + "; subscribers are told \(PriceIncreaseRules.noticeLeadDays) days before their first renewal at the "
                    + "new price [assumed]: start it at \(earliest) or later")
        }
    }

    /// Whether subscribers must consent to an increase at `target` to `newPrice` starting at `effective`: `stated`
    /// when given, else rules **price-increase-consent-threshold** (`Lifecycle/PriceIncreaseRules.swift`; the monthly
    /// plan's increase is judged as an annual one, on the commitment's price, 12 × the monthly) and
    /// **price-increase-once-a-year** (a second increase without consent within a year of the last needs it).
    func consentNeeded(_ stated: Bool?, _ target: PriceTarget, _ newPrice: Price, effective: Instant)
        throws(StoreError) -> Bool
    {
        if let stated { return stated }
        let (old, new) =
            target.plan == .monthly
            ? (
                CommitmentPlan.commitmentPrice(monthly: target.oldPrice),
                CommitmentPlan.commitmentPrice(monthly: newPrice)
            )
            : (target.oldPrice, newPrice)
        switch PriceIncreaseRules.consent(from: old, to: new, currency: target.currency, annual: target.annual) {
        case .needed: return true
        case .unknown:
            throw .priceIncreaseSchedule(
                productId: target.productId, rule: "price-increase-consent-threshold",
                "the increase from \(target.oldPrice) to \(newPrice) \(target.currency) is more than 50 %; whether it "
                    + "exceeds about USD \(target.annual ? 50 : 5) per \(target.annual ? "year" : "period") depends on "
                    + "an exchange rate the simulator does not have: state `consentRequired`")
        case .notNeeded:
            guard let last = parts.lastWithoutConsent[target.scopeKey] else { return false }
            return effective < last.adding(PriceIncreaseRules.noConsentInterval)
        }
    }

    /// When a subscriber in `state` is told of `increase`: ``PriceIncreaseRules/noticeLead`` before their first
    /// renewal at the new price (rule **price-increase-first-renewal**), which for the monthly plan's price inside a
    /// commitment is the commitment's renewal (rule commitment-price-increase-with-start-date).
    static func noticeInstant(of increase: ScheduledPriceIncrease, for state: SubscriptionState) -> Instant {
        if increase.plan == .monthly, let commitment = state.commitment {
            return CommitmentRules.firstCommitmentRenewal(after: increase.effective, commitment: commitment).notice
        }
        return PriceIncreaseRules.firstRenewal(
            after: increase.effective, cycle: state.cycle, periodStart: state.currentPeriodStart
        ).notice
    }

    /// The new price of an increase of `plan`'s price of `productId` not yet started that the subscription
    /// `originalTransactionId` has been told of, for its renewal info (`renewalPrice`, or `commitmentRenewalPrice`)
    /// between the notice and the start date (rule price-increase-first-renewal).
    func toldPriceNotStarted(of productId: String, to originalTransactionId: String, plan: BillingPlan) -> Price? {
        let parts = parts
        for (index, increase) in parts.increases.enumerated()
        where !increase.started && increase.productId == productId && increase.plan == plan
            && parts.sent[index].contains(originalTransactionId)
        {
            return increase.newPrice
        }
        return nil
    }

    // MARK: - Changes

    /// An increase at `target` without consent takes effect at `instant` (rule price-increase-once-a-year).
    mutating func noteWithoutConsent(_ target: PriceTarget, at instant: Instant) {
        stored.lastWithoutConsent[target.scopeKey] = instant
    }

    /// Adds an increase with a start date, not started, nobody told yet; returns its number.
    mutating func add(_ increase: ScheduledPriceIncrease) -> Int {
        let number = stored.increases.count
        stored.increases.append(increase)
        stored.told.append([])
        stored.sent.append([])
        stored.upcoming += 1
        return number
    }

    /// The start date of increase `number` has come (the catalogue holds its new price).
    mutating func start(_ number: Int) {
        stored.increases[number].started = true
        stored.upcoming -= 1
    }

    /// Notes that the chain at `chainIndex` is told of increase `number` (its notice scheduled or sent); `false` when
    /// it was already.
    mutating func tell(_ chainIndex: Int, of number: Int) -> Bool {
        stored.told[number].insert(chainIndex).inserted
    }

    /// Notes (`true`) or forgets (`false`) that the subscription `originalTransactionId` was sent increase `number`'s
    /// notice: its renewal info shows the new price until the start date.
    mutating func markSent(_ sent: Bool, _ originalTransactionId: String, of number: Int) {
        if sent {
            stored.sent[number].insert(originalTransactionId)
        } else {
            stored.sent[number].remove(originalTransactionId)
        }
    }

    /// Whether the invariants in the type's documentation hold.
    var isConsistent: Bool {
        let parts = parts
        let waiting = parts.increases.filter { !$0.started }
        let scopes = Set(waiting.map { "\($0.productId) \($0.storefront ?? "") \($0.plan)" })
        return storage.count <= 1 && parts.upcoming == waiting.count && scopes.count == waiting.count
            && parts.told.count == parts.increases.count && parts.sent.count == parts.increases.count
    }
}
