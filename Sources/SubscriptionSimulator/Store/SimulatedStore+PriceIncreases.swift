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
            try priceTarget(productId, newPrice, in: storefront), to: newPrice, consentRequired: consentRequired)
    }

    /// An increase without a start date at `target`, for either plan's price: refused while one with a start date waits
    /// (rule one-scheduled-price-change); the new price is set (``setPrice(_:for:)``), an increase without consent
    /// is remembered for rule price-increase-once-a-year, and each purchaser it reaches (``isAffected(_:by:)``) is
    /// told now (rule price-increase-consent).
    mutating func raiseNow(_ target: PriceTarget, to newPrice: Price, consentRequired: Bool) throws(StoreError) {
        try refuseSecondScheduledChange(target)
        try setPrice(newPrice, for: target)
        if !consentRequired { priceIncreaseSchedule.parts.lastWithoutConsent[target.scopeKey] = now }
        for index in subscriptionBook.chains.indices where isAffected(subscriptionBook.chains[index], by: target) {
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
        let target =
            plan == .monthly
            ? try monthlyPriceTarget(productId, newPrice, in: storefront)
            : try priceTarget(productId, newPrice, in: storefront)
        try refuseSecondScheduledChange(target)
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
        let needsConsent = try consentNeeded(stated, target, newPrice, effective: effective)
        if !needsConsent { priceIncreaseSchedule.parts.lastWithoutConsent[target.scopeKey] = effective }
        let increase = priceIncreaseSchedule.parts.increases.count
        priceIncreaseSchedule.parts.increases.append(
            ScheduledPriceIncrease(
                productId: target.productId, storefront: target.storefront, oldPrice: target.oldPrice,
                newPrice: newPrice, scheduledAt: now, effective: effective, needsConsent: needsConsent, plan: plan))
        priceIncreaseSchedule.parts.told.append([])
        priceIncreaseSchedule.parts.sent.append([])
        priceIncreaseSchedule.parts.upcoming += 1
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
    /// affected, nor a commitment followed by the up-front plan. Family members keep the purchaser's price (A-15).
    /// Refused unless the new price is above the current monthly price there (rule price-increase-raises-price) and
    /// 12 × it stays within 1.5 × the up-front price (commitment-price-range).
    public mutating func raiseMonthlyPrice(
        _ productId: String, to newPrice: Price, in storefront: String? = nil, consentRequired: Bool
    ) throws(StoreError) {
        try raiseNow(
            try monthlyPriceTarget(productId, newPrice, in: storefront), to: newPrice, consentRequired: consentRequired)
    }

    /// Checks an increase of the monthly plan's price of `productId` to `newPrice` (rules price-increase-raises-price,
    /// commitment-price-range) and says where it applies.
    func monthlyPriceTarget(_ productId: String, _ newPrice: Price, in storefront: String?) throws(StoreError)
        -> PriceTarget
    {
        let product = try requireProduct(productId)
        guard var plan = product.monthlyCommitment else {
            throw .commitmentUnavailable(
                productId: productId,
                "the product has no monthly plan with a 12-month commitment whose price could rise (rule "
                    + "commitment-plan-needs-one-year)")
        }
        var target = try priceTarget(
            product, price: plan.monthlyPrice, prices: plan.prices, annual: true, in: storefront)
        target.plan = .monthly
        guard newPrice > target.oldPrice else {
            throw .priceIncrease(
                productId: productId,
                "the new monthly price \(newPrice) is not above \(target.oldPrice) \(target.storefront ?? target.currency)"
            )
        }
        if let code = target.storefront { plan.prices[code] = newPrice } else { plan.monthlyPrice = newPrice }
        if let problem = CommitmentPlan.problem(with: plan, of: product) {
            throw .commitmentUnavailable(productId: productId, problem)
        }
        return target
    }

    /// Rule commitment-price-increase-at-commitment-renewal: before the monthly price at `target` changes, each
    /// commitment running to the product in its storefronts keeps the price it was sold at, in the purchaser's
    /// storefront, to its end (whatever follows the commitment; the lock is dropped at the next period 1).
    mutating func keepCommitmentPrices(for target: PriceTarget) {
        for chain in subscriptionBook.chains
        where chain.ownership == .purchased && chain.state.commitment != nil
            && chain.state.productId == target.productId && inScope(chain, of: target)
        {
            let lockKey = StorefrontPrice.key(chain.customer, chain.groupIdentifier)
            if commitmentPriceLocks[lockKey] == nil,
                let old = monthlyCommitmentPrice(of: target.productId, in: storefront(of: chain.customer))
            {
                commitmentPriceLocks[lockKey] = StorefrontPrice(price: old.price, currency: old.currency)
            }
        }
    }

    /// The customer consents to the price increase waiting for them: `PRICE_INCREASE` / `ACCEPTED`,
    /// `priceIncreaseStatus` 1 (reference §5.12). Refused when none waits (rule no-price-increase-pending).
    public mutating func consentToPriceIncrease(_ productId: String, by customer: String) throws(StoreError) {
        try apply(.priceIncreaseConsented, to: try requireChain(productId, customer))
        refreshEntitlements()
    }
}

/// Where a price increase applies: the product, the storefront whose own price changes (`nil`: the base price, every
/// storefront of `currency`), and the price it replaces.
struct PriceTarget {
    var productId: String
    var storefront: String?
    var currency: String
    var oldPrice: Price
    var annual: Bool
    /// The plan whose price rises: the product's own price, or its monthly plan's.
    var plan: BillingPlan = .upfront
    /// ``PriceIncreaseSchedule/scopeKey(_:_:plan:)`` of the increase.
    var scopeKey: String { PriceIncreaseSchedule.scopeKey(productId, storefront ?? currency, plan: plan) }
}

extension SimulatedStore {
    /// Checks an increase of `productId` to `newPrice` (rule price-increase-raises-price) and says where it applies.
    func priceTarget(_ productId: String, _ newPrice: Price, in storefront: String?) throws(StoreError) -> PriceTarget {
        let product = try requireProduct(productId)
        guard product.type == .autoRenewable else {
            throw .priceIncrease(
                productId: productId,
                "only auto-renewable subscriptions have price increases; a one-time product's new price is a new "
                    + "catalogue entry")
        }
        let target = try priceTarget(
            product, price: product.price, prices: product.prices, annual: product.period == .oneYear,
            in: storefront)
        guard newPrice > target.oldPrice else {
            throw .priceIncrease(
                productId: productId,
                "the new price \(newPrice) is not above \(target.oldPrice) "
                    + (target.storefront.map { "in \($0)" } ?? target.currency))
        }
        // Rule commitment-price-range: the product's monthly plan must stay within range of the new up-front price,
        // checked when the increase is made (an increase with a start date too, not only when it starts).
        if let plan = product.monthlyCommitment {
            var raised = product
            if let code = target.storefront { raised.prices[code] = newPrice } else { raised.price = newPrice }
            if let problem = CommitmentPlan.problem(with: plan, of: raised) {
                throw .commitmentUnavailable(productId: productId, problem)
            }
        }
        return target
    }

    /// Where an increase of `product`'s price applies and the price it replaces: `price` (the product's own, or its
    /// monthly plan's) in every storefront of the product's currency when `storefront` is `nil` or has that currency;
    /// otherwise the storefront's own price from `prices`, which must exist. Shared by the up-front and the monthly
    /// plan's increases.
    func priceTarget(
        _ product: Product, price: Price, prices: [String: Price], annual: Bool, in storefront: String?
    ) throws(StoreError) -> PriceTarget {
        var target = PriceTarget(
            productId: product.id, storefront: nil, currency: product.currency, oldPrice: price, annual: annual)
        guard let code = storefront else { return target }
        guard let currency = Storefronts.currency(countryCode: code) else {
            throw .priceIncrease(
                productId: product.id, "unknown storefront '\(code)'; expected an ISO 3166-1 alpha-3 code such as FRA")
        }
        guard currency != product.currency else { return target }
        guard let old = prices[code] else { throw .noPriceInStorefront(productId: product.id, storefront: code) }
        target.storefront = code
        target.currency = currency
        target.oldPrice = old
        return target
    }

    /// Rule one-scheduled-price-change (see ``raisePrice(_:to:in:consentRequired:)``).
    func refuseSecondScheduledChange(_ target: PriceTarget) throws(StoreError) {
        guard priceIncreaseSchedule.upcoming > 0 else { return }
        for increase in priceIncreaseSchedule.parts.increases
        where !increase.started && increase.productId == target.productId && increase.storefront == target.storefront
            && increase.plan == target.plan
        {
            throw .priceIncreaseSchedule(
                productId: target.productId, rule: "one-scheduled-price-change",
                "an increase to \(increase.newPrice) \(target.currency) is already scheduled to start at "
                    + "\(increase.effective); App Store Connect holds one future price change per storefront")
        }
    }

    /// Puts `newPrice` in the catalogue where `target` says (one price applies per currency, `Catalog/Prices.swift`).
    /// A new monthly price first leaves each running commitment its own (rule
    /// commitment-price-increase-at-commitment-renewal, ``keepCommitmentPrices(for:)``).
    mutating func setPrice(_ newPrice: Price, for target: PriceTarget) throws(StoreError) {
        if target.plan == .monthly { keepCommitmentPrices(for: target) }
        var product = try requireProduct(target.productId)
        switch (target.plan, target.storefront) {
        case (.upfront, let code?): product.prices[code] = newPrice
        case (.upfront, nil): product.price = newPrice
        case (.monthly, let code?): product.monthlyCommitment?.prices[code] = newPrice
        case (.monthly, nil): product.monthlyCommitment?.monthlyPrice = newPrice
        }
        do throws(CatalogError) { try catalog.replace(product) } catch { throw .catalog(error) }
    }

    /// Whether an increase at `target` reaches `chain`: a purchaser whose subscription renews to the product
    /// (`autoRenewProductId`) **on the plan whose price rises**, in a storefront of the increase (rule
    /// price-increase-reaches-its-plan). The monthly plan's price reaches a purchaser in a commitment to the product
    /// that is followed by the monthly plan of the same product, or whose next renewal starts a commitment to it (a
    /// commitment followed by the up-front plan or another product is not reached, rules
    /// billing-plan-switch-at-renewal, commitment-downgrade-at-end); the up-front price reaches exactly the others: a
    /// commitment that renews into a commitment pays the monthly price, which the up-front price does not change (E O2:
    /// each plan has its own price).
    func isAffected(_ chain: SubscriptionChain, by target: PriceTarget) -> Bool {
        guard chain.ownership == .purchased && chain.state.autoRenewProductId == target.productId else { return false }
        guard renewsOnMonthlyPlan(chain) == (target.plan == .monthly) else { return false }
        return inScope(chain, of: target)
    }

    /// Whether the next renewal of `chain` (renewing to its `autoRenewProductId`) is on the monthly plan: in a
    /// commitment unless a switch to the up-front plan or another product waits for its end, else when a switch to the
    /// monthly plan waits (rule billing-plan-switch-at-renewal).
    func renewsOnMonthlyPlan(_ chain: SubscriptionChain) -> Bool {
        let state = chain.state
        let next = state.pendingChange
        return state.commitment != nil
            ? (next?.plan ?? .monthly) == .monthly && (next?.productId ?? state.productId) == state.autoRenewProductId
            : next?.plan == .monthly && next?.productId == state.autoRenewProductId
    }

    /// Whether the purchaser of `chain` shops in a storefront of `target`.
    func inScope(_ chain: SubscriptionChain, of target: PriceTarget) -> Bool {
        let customerStorefront = storefront(of: chain.customer).countryCode
        if let code = target.storefront { return code == customerStorefront }
        let currency = Storefronts.currency(countryCode: customerStorefront)
        return currency == target.currency || currency == nil
    }

    /// Rules price-increase-consent-threshold and price-increase-once-a-year, unless `stated`.
    func consentNeeded(_ stated: Bool?, _ target: PriceTarget, _ newPrice: Price, effective: Instant)
        throws(StoreError) -> Bool
    {
        if let stated { return stated }
        // The monthly plan's increase is judged as an annual one, on the commitment's price (12 × the monthly).
        let (old, new) =
            target.plan == .monthly
            ? (
                CommitmentPlan.commitmentPrice(monthly: target.oldPrice),
                CommitmentPlan.commitmentPrice(monthly: newPrice)
            )
            : (target.oldPrice, newPrice)
        switch PriceIncreaseRules.consent(from: old, to: new, currency: target.currency, annual: target.annual)
        {
        case .needed: return true
        case .unknown:
            throw .priceIncreaseSchedule(
                productId: target.productId, rule: "price-increase-consent-threshold",
                "the increase from \(target.oldPrice) to \(newPrice) \(target.currency) is more than 50 %; whether it "
                    + "exceeds about USD \(target.annual ? 50 : 5) per \(target.annual ? "year" : "period") depends on "
                    + "an exchange rate the simulator does not have: state `consentRequired`")
        case .notNeeded:
            guard let last = priceIncreaseSchedule.parts.lastWithoutConsent[target.scopeKey] else { return false }
            return effective < last.adding(PriceIncreaseRules.noConsentInterval)
        }
    }

    /// The target of a scheduled increase, as ``priceTarget(_:_:in:)`` made it.
    func target(of increase: ScheduledPriceIncrease) -> PriceTarget {
        let product = catalog[increase.productId]
        return PriceTarget(
            productId: increase.productId, storefront: increase.storefront,
            currency: increase.storefront.flatMap { Storefronts.currency(countryCode: $0) } ?? product?.currency ?? "",
            oldPrice: increase.oldPrice, annual: increase.plan == .monthly || product?.period == .oneYear,
            plan: increase.plan)
    }

    /// Schedules the notice of increase `increase` for every purchaser it reaches who has none yet.
    mutating func scheduleNotices(of increase: Int) throws(StoreError) {
        let target = target(of: priceIncreaseSchedule.parts.increases[increase])
        for index in subscriptionBook.chains.indices
        where !priceIncreaseSchedule.parts.told[increase].contains(index)
            && isAffected(subscriptionBook.chains[index], by: target)
        {
            switch subscriptionBook.chains[index].state.phase {
            case .expired, .revoked: continue
            case .active, .gracePeriod, .billingRetry: break
            }
            priceIncreaseSchedule.parts.told[increase].insert(index)
            try scheduleNotice(of: increase, for: ChainID(index: index))
        }
    }

    /// Rule price-increase-first-renewal: the notice `noticeLead` before the chain's first renewal after the start
    /// date, or now if that is past.
    mutating func scheduleNotice(of increase: Int, for key: ChainID) throws(StoreError) {
        let notice = noticeInstant(
            of: priceIncreaseSchedule.parts.increases[increase], for: subscriptionBook.chains[key.index].state)
        do throws(SchedulingError) {
            _ = try scheduler.schedule(
                .priceIncreaseNotice(increase: increase, chain: key), at: max(notice, now),
                priority: StoreEventPriority.priceIncrease,
                group: eventGroup(ofCustomerAt: position(of: subscriptionBook.chains[key.index])))
        } catch { throw .scheduling(error) }
    }

    /// The notice is due: told now (rule price-increase-consent), unless the subscription moved on (another product:
    /// nothing [assumed]) or its renewal dates moved (the notice moves with them).
    mutating func handlePriceIncreaseNotice(_ increase: Int, for key: ChainID) throws(StoreError) {
        let scheduled = priceIncreaseSchedule.parts.increases[increase]
        let chain = subscriptionBook.chains[key.index]
        guard isAffected(chain, by: target(of: scheduled)) else { return }
        if chain.state.phase == .active {
            let notice = noticeInstant(of: scheduled, for: chain.state)
            if notice > now { return try scheduleNotice(of: increase, for: key) }
        }
        // Marked before the transition, whose PRICE_INCREASE carries the new price; unmarked if it changed nothing.
        priceIncreaseSchedule.parts.sent[increase].insert(chain.originalTransactionId)
        // Store events are never rejected: a lifecycle refusal changes nothing.
        do { try apply(.priceIncreaseAnnounced(needsConsent: scheduled.needsConsent), to: key) } catch {
            if case .scheduling = error { throw error }
        }
        if subscriptionBook.chains[key.index].state.priceIncrease == nil {
            priceIncreaseSchedule.parts.sent[increase].remove(chain.originalTransactionId)
        }
    }

    /// When a subscriber in `state` is told of `increase`: ``PriceIncreaseRules/noticeLead`` before their first
    /// renewal at the new price (rule price-increase-first-renewal), which for the monthly plan's price inside a
    /// commitment is the commitment's renewal (rule commitment-price-increase-with-start-date).
    func noticeInstant(of increase: ScheduledPriceIncrease, for state: SubscriptionState) -> Instant {
        if increase.plan == .monthly, let commitment = state.commitment {
            return CommitmentRules.firstCommitmentRenewal(after: increase.effective, commitment: commitment).notice
        }
        return PriceIncreaseRules.firstRenewal(
            after: increase.effective, cycle: state.cycle, periodStart: state.currentPeriodStart
        ).notice
    }

    /// The start date: new purchases pay the new price; purchasers who subscribed since it was scheduled are told
    /// (rule price-increase-first-renewal). A rise of the monthly plan's price leaves each running commitment its
    /// own price (rule commitment-price-increase-with-start-date).
    mutating func startPriceIncrease(_ increase: Int) throws(StoreError) {
        let scheduled = priceIncreaseSchedule.parts.increases[increase]
        try setPrice(scheduled.newPrice, for: target(of: scheduled))
        priceIncreaseSchedule.parts.increases[increase].started = true
        priceIncreaseSchedule.parts.upcoming -= 1
        try scheduleNotices(of: increase)
    }

    /// The new price of an increase of `plan`'s price not yet started that the purchaser of `chain` has been told
    /// of, for their renewal info (`renewalPrice`, or `commitmentRenewalPrice`) between the notice and the start date.
    func toldPriceNotStarted(of productId: String, for chain: SubscriptionChain, plan: BillingPlan = .upfront)
        -> Price?
    {
        for (index, increase) in priceIncreaseSchedule.parts.increases.enumerated()
        where !increase.started && increase.productId == productId && increase.plan == plan
            && priceIncreaseSchedule.parts.sent[index].contains(chain.originalTransactionId)
        {
            return increase.newPrice
        }
        return nil
    }
}
