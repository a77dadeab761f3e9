/// Price increases of auto-renewable subscriptions (reference §5.12, §1.1); rules in ``PriceTarget``,
/// ``PriceIncreaseSchedule``, ``CommitmentPriceLocks`` and `Lifecycle/` (`PriceIncreaseRules`, `CommitmentRules`).
extension SimulatedStore {
    /// The developer raises an auto-renewable subscription's price now, in one storefront (`storefront`, ISO 3166-1
    /// alpha-3) or, when `storefront` is `nil`, in every storefront of the product's own currency. New purchases pay
    /// it at once; each active purchaser it reaches (rule price-increase-reaches-its-plan) is sent `PRICE_INCREASE` /
    /// `PENDING` when `consentRequired`, else `PRICE_INCREASE` / `ACCEPTED`, and pays it from the next renewal (rules
    /// price-increase-consent, price-increase-not-consented). Refused by rules price-increase-raises-price,
    /// commitment-price-range and one-scheduled-price-change.
    public mutating func raisePrice(
        _ productId: String, to newPrice: Price, in storefront: String? = nil, consentRequired: Bool
    ) throws(StoreError) {
        try raiseNow(
            try PriceTarget.upfront(requireProduct(productId), to: newPrice, in: storefront), to: newPrice,
            consentRequired: consentRequired)
    }

    /// An increase without a start date at `target`, for either plan's price: refused while one with a start date waits
    /// (rule one-scheduled-price-change); the new price is set (``setPrice(_:for:)``), an increase without consent
    /// is remembered for rule price-increase-once-a-year, and each purchaser it reaches
    /// (``PriceTarget/reaches(_:in:)``) is told now (rule price-increase-consent).
    mutating func raiseNow(_ target: PriceTarget, to newPrice: Price, consentRequired: Bool) throws(StoreError) {
        try priceIncreaseSchedule.refuseSecondScheduledChange(target)
        try setPrice(newPrice, for: target)
        if !consentRequired { priceIncreaseSchedule.noteWithoutConsent(target, at: now) }
        for index in subscriptionBook.chains.indices
        where target.reaches(
            subscriptionBook.chains[index], in: storefront(of: subscriptionBook.chains[index].customer))
        {
            try apply(.priceIncreaseAnnounced(needsConsent: consentRequired), to: ChainID(index: index))
        }
        refreshEntitlements()
    }

    /// A price increase with a start date: scheduled now, it starts at `effective`, when new purchases pay `newPrice`
    /// (``startPriceIncrease(_:)``). Each purchaser it reaches (as ``raisePrice(_:to:in:consentRequired:)`` says) is
    /// sent `PRICE_INCREASE` / `PENDING` when consent is needed, else `PRICE_INCREASE` / `ACCEPTED`,
    /// ``PriceIncreaseRules/noticeLead`` before their first renewal after `effective`, and keeps the old price until
    /// then (rules price-increase-notice-lead, price-increase-first-renewal). `consentRequired`, when given, wins; when
    /// `nil` it follows rules price-increase-consent-threshold and price-increase-once-a-year. `plan` `.monthly` raises
    /// the monthly price of the product's commitment plan (rules commitment-price-increase-with-start-date [inferred],
    /// commitment-price-increase-at-commitment-renewal). Refused by rule price-increase-notice-lead (`effective` before
    /// now, or less than the lead after it), as ``raisePrice(_:to:in:consentRequired:)`` is, and when consent cannot be
    /// worked out (rule price-increase-consent-threshold).
    public mutating func raisePrice(
        _ productId: String, to newPrice: Price, in storefront: String? = nil, effective: Instant,
        consentRequired stated: Bool?, plan: BillingPlan = .upfront
    ) throws(StoreError) {
        let target = try PriceTarget.of(plan, of: requireProduct(productId), to: newPrice, in: storefront)
        let increase = try priceIncreaseSchedule.schedule(
            target, to: newPrice, effective: effective, consentRequired: stated, at: now)
        do throws(SchedulingError) {
            _ = try scheduler.schedule(
                .priceIncreaseStarts(increase: increase), at: effective, priority: StoreEventPriority.priceIncrease)
        } catch { throw .scheduling(error) }
        try scheduleNotices(of: increase)
    }

    /// The developer raises the monthly price of the product's commitment plan now (`raisePrice` with `plan: monthly`),
    /// in one storefront or, when `storefront` is `nil`, in every storefront of the product's own currency: new
    /// purchases of the plan pay it at once, a running commitment keeps its price to its end (rule
    /// commitment-price-increase-at-commitment-renewal [inferred]), and each purchaser it reaches (rule
    /// price-increase-reaches-its-plan) is told now as by ``raisePrice(_:to:in:consentRequired:)``. Refused by rules
    /// price-increase-raises-price and commitment-price-range (``PriceTarget/monthly(_:to:in:)``).
    public mutating func raiseMonthlyPrice(
        _ productId: String, to newPrice: Price, in storefront: String? = nil, consentRequired: Bool
    ) throws(StoreError) {
        try raiseNow(
            try PriceTarget.monthly(requireProduct(productId), to: newPrice, in: storefront), to: newPrice,
            consentRequired: consentRequired)
    }

    /// The customer consents to the price increase waiting for them: `PRICE_INCREASE` / `ACCEPTED`,
    /// `priceIncreaseStatus` 1 (reference §5.12). Refused when none waits (rule no-price-increase-pending).
    public mutating func consentToPriceIncrease(_ productId: String, by customer: String) throws(StoreError) {
        try apply(.priceIncreaseConsented, to: try requireChain(productId, customer))
        refreshEntitlements()
    }

    /// Puts `newPrice` in the catalogue where `target` says (``PriceTarget/raising(_:to:)``). A new monthly price first
    /// leaves each running commitment its own (rule commitment-price-increase-at-commitment-renewal,
    /// ``CommitmentPriceLocks/keepPrices(for:of:catalog:directory:default:)``).
    mutating func setPrice(_ newPrice: Price, for target: PriceTarget) throws(StoreError) {
        commitmentPriceLocks.keepPrices(
            for: target, of: subscriptionBook, catalog: catalog, directory: directory, default: app.storefront)
        let product = target.raising(try requireProduct(target.productId), to: newPrice)
        do throws(CatalogError) { try catalog.replace(product) } catch { throw .catalog(error) }
    }

    /// Schedules the notice of increase `increase` for every purchaser it reaches who waits for one
    /// (``PriceIncreaseSchedule/awaitingNotice(of:in:catalog:storefront:)``).
    mutating func scheduleNotices(of increase: Int) throws(StoreError) {
        for key in priceIncreaseSchedule.awaitingNotice(
            of: increase, in: subscriptionBook, catalog: catalog, storefront: { storefront(of: $0) })
        {
            _ = priceIncreaseSchedule.tell(key.index, of: increase)
            try scheduleNotice(of: increase, for: key)
        }
    }

    /// Rule price-increase-first-renewal: the notice `noticeLead` before the chain's first renewal after the start
    /// date, or now if that is past.
    mutating func scheduleNotice(of increase: Int, for key: ChainID) throws(StoreError) {
        let notice = priceIncreaseSchedule.noticeInstant(of: increase, for: subscriptionBook.chains[key.index].state)
        do throws(SchedulingError) {
            _ = try scheduler.schedule(
                .priceIncreaseNotice(increase: increase, chain: key), at: max(notice, now),
                priority: StoreEventPriority.priceIncrease,
                group: eventGroup(ofCustomerAt: position(of: subscriptionBook.chains[key.index])))
        } catch { throw .scheduling(error) }
    }

    /// The notice is due: told now (rule price-increase-consent), unless the subscription moved on (another product:
    /// nothing [assumed]) or its renewal dates moved (``PriceIncreaseSchedule/noticeMoved(of:for:at:)``).
    mutating func handlePriceIncreaseNotice(_ increase: Int, for key: ChainID) throws(StoreError) {
        let scheduled = priceIncreaseSchedule.parts.increases[increase]
        let chain = subscriptionBook.chains[key.index]
        guard
            priceIncreaseSchedule.target(of: increase, in: catalog).reaches(chain, in: storefront(of: chain.customer))
        else { return }
        if PriceIncreaseSchedule.noticeMoved(of: scheduled, for: chain.state, at: now) {
            return try scheduleNotice(of: increase, for: key)
        }
        // Marked before the transition, whose PRICE_INCREASE carries the new price; unmarked if it changed nothing.
        priceIncreaseSchedule.markSent(true, chain.originalTransactionId, of: increase)
        // Store events are never rejected: a lifecycle refusal changes nothing.
        do { try apply(.priceIncreaseAnnounced(needsConsent: scheduled.needsConsent), to: key) } catch {
            if case .scheduling = error { throw error }
        }
        if subscriptionBook.chains[key.index].state.priceIncrease == nil {
            priceIncreaseSchedule.markSent(false, chain.originalTransactionId, of: increase)
        }
    }

    /// The start date: new purchases pay the new price; purchasers who subscribed since it was scheduled are told
    /// (rule price-increase-first-renewal). A rise of the monthly plan's price leaves each running commitment its
    /// own price (rule commitment-price-increase-with-start-date).
    mutating func startPriceIncrease(_ increase: Int) throws(StoreError) {
        let scheduled = priceIncreaseSchedule.parts.increases[increase]
        try setPrice(scheduled.newPrice, for: priceIncreaseSchedule.target(of: increase, in: catalog))
        priceIncreaseSchedule.start(increase)
        try scheduleNotices(of: increase)
    }
}
