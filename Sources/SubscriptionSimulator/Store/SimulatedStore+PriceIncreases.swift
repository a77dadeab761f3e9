/// Price increases of auto-renewable subscriptions (reference §5.12, §1.1).
extension SimulatedStore {
    /// The developer raises an auto-renewable subscription's price: in one storefront (`storefront`, ISO 3166-1
    /// alpha-3) or, when `storefront` is `nil`, in every storefront of the product's own currency (its base `price`;
    /// a storefront of that currency also changes the base price, since one price applies per currency,
    /// `Catalog/Prices.swift`).
    ///
    /// New purchases pay the new price at once. Each purchaser whose subscription renews to the product
    /// (`autoRenewProductId`: a pending downgrade counts for the product it renews to) and is active in an affected
    /// storefront is told now (rule price-increase-consent): `PRICE_INCREASE` / `PENDING` when
    /// `consentRequired`, else `PRICE_INCREASE` / `ACCEPTED`; the new price is charged from the next renewal on
    /// (`renewalPrice` shows it at once). Without consent by then the subscription expires (rule
    /// price-increase-not-consented). Family members get no `PRICE_INCREASE` (rule member-notifications, reference
    /// §1.3) and no `priceIncreaseStatus`; they follow the purchaser's renewal or expiry. Apple's notice periods
    /// (the increase reaching subscribers weeks after it is set) are not modelled [assumed: the next renewal].
    ///
    /// Rule **price-increase-raises-price**: the new price must be above the current one there. Rule
    /// **one-scheduled-price-change**: refused while an increase with a start date waits to start for the same
    /// product and storefront (Apple: "you can schedule one future price change at a time, per country or region";
    /// a second one overwrites the first — the simulator refuses instead [assumed]).
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

    /// A price increase with a start date (`raisePrice` with `effective`; rules in
    /// `Lifecycle/PriceIncreaseRules.swift`): scheduled now, it starts at `effective`, when new purchases pay
    /// `newPrice`. Each purchaser it reaches (as ``raisePrice(_:to:in:consentRequired:)`` says) is told
    /// ``PriceIncreaseRules/noticeLead`` before their first renewal after `effective` (rules price-increase-notice-lead,
    /// price-increase-first-renewal): `PRICE_INCREASE` / `PENDING` when consent is needed, else `PRICE_INCREASE` /
    /// `ACCEPTED`; their renewals until then keep the old price. A purchaser who subscribes between now and
    /// `effective` (at the old price) is told at `effective` at the latest [assumed]. `consentRequired`, when given,
    /// wins; when `nil` it follows rules price-increase-consent-threshold and price-increase-once-a-year.
    ///
    /// Refused (rule price-increase-notice-lead) when `effective` is before now, or less than the notice lead after
    /// it: every subscriber is then told the full lead before paying more. Also refused as
    /// ``raisePrice(_:to:in:consentRequired:)`` is, and when consent cannot be worked out (rule
    /// price-increase-consent-threshold).
    ///
    /// `plan` `.monthly`: the monthly price of the product's commitment plan rises at `effective` (rule
    /// **commitment-price-increase-with-start-date** [inferred], Appendix E O2: "the same rules as standard annual
    /// subscriptions"): who is reached is as for ``raiseMonthlyPrice(_:to:in:consentRequired:)``; a running
    /// commitment keeps its monthly price to its end, and the new price applies from the first commitment that
    /// renews strictly after `effective`, whose purchaser is told ``PriceIncreaseRules/noticeLead`` before that
    /// commitment renewal (``CommitmentRules/firstCommitmentRenewal(after:commitment:)``), not before the next
    /// monthly charge. Consent follows the annual threshold on the commitment's price (12 × the monthly price).
    public mutating func raisePrice(
        _ productId: String, to newPrice: Price, in storefront: String? = nil, effective: Instant,
        consentRequired stated: Bool?, plan: BillingPlan = .upfront
    ) throws(StoreError) {
        let product = try requireProduct(productId)
        let target =
            plan == .monthly
            ? try PriceTarget.monthly(product, to: newPrice, in: storefront)
            : try PriceTarget.upfront(product, to: newPrice, in: storefront)
        let increase = try priceIncreaseSchedule.schedule(
            target, to: newPrice, effective: effective, consentRequired: stated, at: now)
        do throws(SchedulingError) {
            _ = try scheduler.schedule(
                .priceIncreaseStarts(increase: increase), at: effective, priority: StoreEventPriority.priceIncrease)
        } catch { throw .scheduling(error) }
        try scheduleNotices(of: increase)
    }

    /// The developer raises the monthly price of the product's commitment plan (`raisePrice` with `plan: monthly`), in
    /// one storefront or, when `storefront` is `nil`, in every storefront of the product's own currency.
    ///
    /// **commitment-price-increase-at-commitment-renewal** [inferred]: price changes of a commitment plan "follow the
    /// same rules as standard annual subscriptions" (Appendix E O2; A2 "Manage price changes"): an annual subscriber
    /// pays a new price from the renewal, so a commitment keeps its monthly price for its remaining periods and the
    /// next commitment pays the new one. New purchases of the plan pay it at once. Each purchaser in a commitment to
    /// the product (or whose next renewal starts one) in an affected storefront is told now, as by
    /// ``raisePrice(_:to:in:consentRequired:)``: `PRICE_INCREASE` / `PENDING` or `ACCEPTED`; meanwhile `renewalPrice`
    /// stays the commitment's price and `commitmentRenewalPrice` is the new one; without consent the subscription
    /// ends at the commitment's end (rule commitment-price-increase-as-annual). Up-front subscribers are not
    /// affected, nor a commitment followed by the up-front plan. Family members keep the purchaser's price.
    /// Refused unless the new price is above the current monthly price there (rule price-increase-raises-price) and
    /// 12 × it stays within 1.5 × the up-front price (commitment-price-range).
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
}

extension SimulatedStore {
    /// Puts `newPrice` in the catalogue where `target` says (``PriceTarget/raising(_:to:)``). A new monthly price first
    /// leaves each running commitment its own (rule commitment-price-increase-at-commitment-renewal,
    /// ``CommitmentPriceLocks/keepPrices(for:of:catalog:storefront:)``).
    mutating func setPrice(_ newPrice: Price, for target: PriceTarget) throws(StoreError) {
        if target.plan == .monthly {
            commitmentPriceLocks.keepPrices(
                for: target, of: subscriptionBook, catalog: catalog,
                storefront: { [directory, fallback = app.storefront] in directory.storefront(of: $0, default: fallback)
                })
        }
        let product = target.raising(try requireProduct(target.productId), to: newPrice)
        do throws(CatalogError) { try catalog.replace(product) } catch { throw .catalog(error) }
    }

    /// Schedules the notice of increase `increase` for every purchaser it reaches who waits for one
    /// (``PriceIncreaseSchedule/awaitingNotice(of:target:in:storefront:)``).
    mutating func scheduleNotices(of increase: Int) throws(StoreError) {
        for key in priceIncreaseSchedule.awaitingNotice(
            of: increase, target: priceIncreaseSchedule.target(of: increase, in: catalog), in: subscriptionBook,
            storefront: { storefront(of: $0) })
        {
            _ = priceIncreaseSchedule.tell(key.index, of: increase)
            try scheduleNotice(of: increase, for: key)
        }
    }

    /// Rule price-increase-first-renewal: the notice `noticeLead` before the chain's first renewal after the start
    /// date, or now if that is past.
    mutating func scheduleNotice(of increase: Int, for key: ChainID) throws(StoreError) {
        let notice = PriceIncreaseSchedule.noticeInstant(
            of: priceIncreaseSchedule.parts.increases[increase], for: subscriptionBook.chains[key.index].state)
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
