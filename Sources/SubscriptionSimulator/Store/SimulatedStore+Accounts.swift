/// Account-level fields of transactions and renewal info: `storefront`/`storefrontId`, the price in that storefront,
/// `appTransactionId` and `appAccountToken`.
extension SimulatedStore {
    /// Puts a customer in a storefront (default: `app.storefront`). A customer's storefront is fixed once they have
    /// a transaction [assumed: changing the App Store country mid-run is not modelled].
    public mutating func setStorefront(_ storefront: Storefront, for customer: String) throws(StoreError) {
        let position = register(customer)
        if storefront == self.storefront(of: customer) { return }
        let record = directory.records[position]
        if !record.chains.isEmpty || !record.oneTimePurchases.isEmpty {
            throw .storefrontFixed(customer: customer, storefront: self.storefront(of: customer).countryCode)
        }
        directory.setStorefront(storefront, for: customer)
    }

    /// The customer's storefront: their own, or the app's default.
    public func storefront(of customer: String) -> Storefront {
        directory.storefronts[customer] ?? app.storefront
    }

    /// The customer's `appTransactionId`: one per Apple Account per app, so each family member has their own
    /// (Notifications 2.15; `Engine/IdentifierSource.swift` gives the format).
    public func appTransactionId(of customer: String) -> String? {
        directory.positions[customer].map { directory.records[$0].appTransactionId }
    }

    /// The `appAccountToken` the customer's transactions carry now, if their app supplied one.
    public func appAccountToken(of customer: String) -> String? {
        directory.appAccountTokens[customer]
    }

    /// A purchase whose app supplies an `appAccountToken` (a lowercase UUID; rule app-account-token-is-a-uuid).
    /// The token appears in the customer's transactions and renewal info from this purchase on, and never in a family
    /// member's (reference §4.5). Apple refuses a token that is not a UUID (`InvalidAppAccountTokenUUIDError`,
    /// 4000183).
    public mutating func purchase(
        _ productId: String, by customer: String, appAccountToken: String?, plan: BillingPlan = .upfront
    ) throws(StoreError) {
        guard let token = appAccountToken else { return try purchase(productId, by: customer, plan: plan) }
        if let problem = AppAccountToken.problem(with: token) {
            throw .invalidAppAccountToken(token, problem)
        }
        let product = try requireProduct(productId)
        try requirePrice(of: product, for: customer, plan: plan)
        let previous = directory.setAppAccountToken(token, for: customer)
        do throws(StoreError) { try purchase(productId, by: customer, plan: plan) } catch {
            directory.setAppAccountToken(previous, for: customer)
            throw error
        }
    }

    /// Rule price-in-storefront-currency (`Catalog/Prices.swift`): the product must have a price in the customer's
    /// storefront, and the introductory offer the customer would get on `plan` one too: an introductory offer
    /// configured for the other plan is not the customer's (rule offer-for-its-plan), and a plan change (`plan`
    /// `nil`) never carries one (rule "No introductory offer after a plan change").
    func requirePrice(of product: Product, for customer: String, plan: BillingPlan?) throws(StoreError) {
        let storefront = storefront(of: customer)
        guard StorefrontPricing.price(of: product, in: storefront) != nil else {
            throw .noPriceInStorefront(productId: product.id, storefront: storefront.countryCode)
        }
        if let plan, let group = product.group, let offer = product.introOffer(for: plan),
            !subscriptionBook.introOfferUsed.contains(SubscriptionBook.customerGroupKey(customer, group)),
            StorefrontPricing.price(of: product, offer: offer, in: storefront) == nil
        {
            throw .noPriceInStorefront(productId: product.id, storefront: storefront.countryCode)
        }
    }

    /// The record with its customer's account fields. A purchaser's transaction is priced in their storefront; a
    /// family member's keeps the purchaser's price and currency and carries no `appAccountToken` (§4.5).
    /// `customerAt`: the customer's position in the directory; `productAt`: the product's place in the catalogue, when
    /// the caller knows it.
    func addAccountFields(to record: inout TransactionRecord, customerAt position: Int, productAt product: Int? = nil) {
        // Read once and set together: the fields live in the record's shared box, which is replaced only when one
        // of them changes (a renewal's are its previous transaction's).
        let storefront = storefront(of: record.customer)
        var token: String? = nil
        var currency = record.currency
        switch record.ownership {
        case .purchased:
            token = directory.appAccountTokens[record.customer]
            // Set App Account Token's, for this purchase (read only when one was set: this runs on every charge).
            if let set = serverRequests.appAccountToken(forOriginalTransactionId: record.originalTransactionId) {
                token = set
            }
            let monthly =
                record.commitment == nil
                ? nil
                : keptCommitmentPrice(of: record.customer, inGroup: record.subscriptionGroupIdentifier ?? "")
                    ?? monthlyCommitmentPrice(of: record.productId, in: storefront)
            let priced =
                if let monthly {
                    // Rule price-in-storefront-currency for the monthly plan: its monthly price there (an offer's
                    // price in its period, O1).
                    record.offer.map { ($0.price, monthly.currency) } ?? monthly
                } else if let product {
                    catalog.storefrontPrice(ofProductAt: product, offer: record.offer, in: storefront)
                } else {
                    catalog.storefrontPrice(of: record.productId, offer: record.offer, in: storefront)
                }
            if let priced {
                record.price = priced.price
                currency = priced.currency
                if let monthly {
                    // `commitmentPrice` in the storefront (rule commitment-twelve-periods).
                    record.commitment?.price = CommitmentPlan.commitmentPrice(monthly: monthly.price)
                }
            } else if let product {
                // No price there (a paid offer outside the product's currency): the product's own currency, as built.
                currency = catalog.products[product].currency
            }
        case .familyShared:
            break
        }
        record.setAccountFields(
            storefront: storefront, appTransactionId: directory.records[position].appTransactionId,
            appAccountToken: token, currency: currency)
    }

    /// Renewal info with the chain customer's account fields; the renewal price is the purchaser's, in the
    /// purchaser's storefront (a member's share renews at the purchaser's price, A-15).
    func addAccountFields(of chain: SubscriptionChain, productAt product: Int, to snapshot: inout RenewalSnapshot) {
        snapshot.appTransactionId = position(of: chain).map { directory.records[$0].appTransactionId } ?? ""
        if chain.ownership == .purchased {
            snapshot.appAccountToken = directory.appAccountTokens[chain.customer]
            if let set = serverRequests.appAccountToken(forOriginalTransactionId: chain.originalTransactionId) {
                snapshot.appAccountToken = set
            }
        }
        let storefront = storefront(of: purchaser(of: chain))
        if let priced = catalog.storefrontPrice(ofProductAt: product, offer: snapshot.upcomingOffer, in: storefront) {
            if snapshot.renewalPrice != nil { snapshot.renewalPrice = priced.price }
            snapshot.currency = priced.currency
        }
    }
}

extension SimulatedStore {
    /// Who pays for `chain`: its purchaser for a member's share, its customer otherwise (whose storefront prices it).
    func purchaser(of chain: SubscriptionChain) -> String {
        chain.purchaserPosition >= 0 ? directory.names[chain.purchaserPosition] : chain.customer
    }

    /// The monthly price `purchaser`'s commitment in `group` keeps after the plan's price rose during it (rule
    /// commitment-price-increase-at-commitment-renewal); `nil` when it keeps none.
    func keptCommitmentPrice(of purchaser: String, inGroup group: String) -> (price: Price, currency: String)? {
        commitmentPriceLocks.kept(of: purchaser, inGroup: group)
    }

    /// The monthly plan's price of `productId` in `storefront` (rules price-in-storefront-currency,
    /// commitment-storefronts); `nil` when the product has no such plan or no price there.
    func monthlyCommitmentPrice(of productId: String, in storefront: Storefront) -> (price: Price, currency: String)? {
        guard let index = catalog.index(of: productId), let plan = catalog.products[index].monthlyCommitment else {
            return nil
        }
        return plan.price(currency: catalog.products[index].currency, in: storefront)
    }

    /// **commitment-renewal-info**: inside a commitment the renewal info describes the next monthly period at the top
    /// level (`autoRenewProductId` the current product, `renewalPrice` the monthly price, `renewalBillingPlanType`
    /// MONTHLY) and what follows the commitment in `commitmentInfo` (reference Appendix E P10-P12; A3 sample). A
    /// product chosen for after the commitment (a downgrade or crossgrade, rule commitment-downgrade-at-end) is
    /// `commitmentAutoRenewProductId` with its up-front plan [inferred: E.1.7 G2], or the plan the customer chose
    /// (`commitmentRenewalBillingPlanType`, `commitmentRenewalPrice` that plan's price: the up-front price, or the
    /// monthly price as for a renewing commitment; A3 sample: the current product's up-front plan chosen for after
    /// the commitment, rule billing-plan-switch-at-renewal); in the 12th period it is the next period's product and
    /// plan at the top level too.
    func addCommitment(
        _ commitment: CommitmentState, of chain: SubscriptionChain, state: SubscriptionState,
        to snapshot: inout RenewalSnapshot
    ) {
        let storefront = storefront(of: purchaser(of: chain))
        // The next monthly period: the commitment's own price after an increase during it (rule
        // commitment-price-increase-at-commitment-renewal); the next commitment: the plan's price now, or the new
        // price of a rise not started yet that the purchaser has been told of (rule
        // commitment-price-increase-with-start-date).
        let catalogPrice = monthlyCommitmentPrice(of: state.productId, in: storefront)
        var current = catalogPrice
        if priceIncreaseSchedule.upcoming > 0, state.priceIncrease != nil, let found = catalogPrice,
            let told = priceIncreaseSchedule.toldPriceNotStarted(
                of: state.productId, to: chain.originalTransactionId, plan: .monthly)
        {
            current = (told, found.currency)
        }
        // A member's share renews at the purchaser's commitment's price.
        let monthly =
            commitment.isLastPeriod
            ? current : keptCommitmentPrice(of: purchaser(of: chain), inGroup: chain.groupIdentifier) ?? catalogPrice
        let after = state.pendingChange?.productId ?? state.productId
        let afterPlan = state.pendingChange?.plan ?? .monthly
        let afterPrice =
            afterPlan == .monthly
            ? (after == state.productId ? current : monthlyCommitmentPrice(of: after, in: storefront))?.price
            : catalog.storefrontPrice(of: after, offer: nil, in: storefront)?.price
        let changesNext = commitment.isLastPeriod && state.pendingChange != nil
        if !changesNext {
            snapshot.autoRenewProductId = state.productId
            if snapshot.upcomingOffer == nil, let monthly { snapshot.renewalPrice = monthly.price }
        } else if afterPlan == .monthly, snapshot.upcomingOffer == nil, let afterPrice {
            // The next period is the first of a commitment to another product: its monthly price.
            snapshot.renewalPrice = afterPrice
        }
        snapshot.commitment = RenewalCommitment(
            nextPeriodPlan: changesNext ? afterPlan : .monthly, autoRenewProductId: after,
            autoRenewOn: commitment.autoRenew, renewalPlan: afterPlan, renewalDate: commitment.expiresDate,
            renewalPrice: afterPrice ?? .free)
    }

    /// **billing-plan-switch-at-renewal**, outside a commitment: an up-front subscription whose next renewal starts a
    /// commitment (the monthly plan chosen with `changePlan`) reports that renewal's plan, `renewalBillingPlanType`
    /// `MONTHLY` (E P11: the plan of the next billing period), and its monthly price as `renewalPrice`; no
    /// `commitmentInfo`, which is "only present … when the subscription is currently in a commitment" (E P10; A3).
    func addPendingMonthlyPlan(
        _ change: PurchaseRequest, of chain: SubscriptionChain, to snapshot: inout RenewalSnapshot
    ) {
        let storefront = storefront(of: purchaser(of: chain))
        snapshot.renewalPlan = .monthly
        if snapshot.renewalPrice != nil, snapshot.upcomingOffer == nil,
            let monthly = monthlyCommitmentPrice(of: change.productId, in: storefront)
        {
            // Told of a rise of the monthly price not started yet: the commitment starting at the renewal pays it
            // (rule commitment-price-increase-with-start-date).
            let told =
                priceIncreaseSchedule.upcoming > 0
                ? priceIncreaseSchedule.toldPriceNotStarted(
                    of: change.productId, to: chain.originalTransactionId, plan: .monthly) : nil
            snapshot.renewalPrice = told ?? monthly.price
        }
    }

    /// Rules commitment-plan-needs-one-year and commitment-storefronts (`Catalog/CommitmentPlan.swift`): the monthly
    /// plan is bought only of a product that offers it, in a storefront where it is sold and priced.
    func requireCommitmentPlan(of product: Product, for customer: String) throws(StoreError) {
        guard product.monthlyCommitment != nil else {
            throw .commitmentUnavailable(
                productId: product.id,
                "the product has no monthly plan with a 12-month commitment; give it a `monthlyCommitment` (one-year "
                    + "subscriptions only, rule commitment-plan-needs-one-year)")
        }
        let storefront = storefront(of: customer)
        if CommitmentPlan.unavailableStorefronts.contains(storefront.countryCode) {
            throw .commitmentUnavailable(
                productId: product.id,
                "the monthly plan with a 12-month commitment is not sold in storefront \(storefront.countryCode) (rule "
                    + "commitment-storefronts: every storefront except USA and SGP)")
        }
        guard monthlyCommitmentPrice(of: product.id, in: storefront) != nil else {
            throw .commitmentUnavailable(
                productId: product.id,
                "the monthly plan has no price in storefront \(storefront.countryCode); give it one "
                    + "(`monthlyCommitment.prices`, rule price-in-storefront-currency)")
        }
    }
}
