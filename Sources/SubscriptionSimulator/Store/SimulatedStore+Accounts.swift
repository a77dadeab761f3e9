/// Account-level fields of transactions and renewal info: `storefront`/`storefrontId`, the price in that storefront,
/// `appTransactionId` and `appAccountToken`.
extension SimulatedStore {
    /// Puts a customer in a storefront (default: `app.storefront`), until they have a transaction
    /// (``CustomerDirectory/storefrontIsFixed(ofCustomerAt:)``).
    public mutating func setStorefront(_ storefront: Storefront, for customer: String) throws(StoreError) {
        let position = register(customer)
        if storefront == self.storefront(of: customer) { return }
        if directory.storefrontIsFixed(ofCustomerAt: position) {  // rule storefront-fixed-per-customer
            throw .storefrontFixed(customer: customer, storefront: self.storefront(of: customer).countryCode)
        }
        directory.setStorefront(storefront, for: customer)
    }

    /// The customer's storefront: their own, or the app's default.
    public func storefront(of customer: String) -> Storefront {
        directory.storefront(of: customer, default: app.storefront)
    }

    /// The customer's `appTransactionId` (``CustomerDirectory/appTransactionId(of:)``).
    public func appTransactionId(of customer: String) -> String? {
        directory.appTransactionId(of: customer)
    }

    /// The `appAccountToken` the customer's transactions carry now, if their app supplied one.
    public func appAccountToken(of customer: String) -> String? {
        directory.appAccountToken(of: customer)
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
            subscriptionBook.introOfferAvailable(to: customer, inGroup: group),
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
            token = appAccountToken(of: record.customer, purchase: record.originalTransactionId)
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
            snapshot.appAccountToken = appAccountToken(of: chain.customer, purchase: chain.originalTransactionId)
        }
        let storefront = storefront(of: purchaser(of: chain))
        if let priced = catalog.storefrontPrice(ofProductAt: product, offer: snapshot.upcomingOffer, in: storefront) {
            if snapshot.renewalPrice != nil { snapshot.renewalPrice = priced.price }
            snapshot.currency = priced.currency
        }
    }
}

extension SimulatedStore {
    /// The `appAccountToken` of `customer`'s purchase `originalTransactionId`: the one Set App Account Token gave
    /// this purchase, else the one the customer's app supplied (read in place: this runs on every charge).
    @inline(__always)
    func appAccountToken(of customer: String, purchase originalTransactionId: String) -> String? {
        if let set = serverRequests.appAccountToken(forOriginalTransactionId: originalTransactionId) { return set }
        return directory.appAccountTokens[customer]
    }

    /// Who pays for `chain`: its purchaser for a member's share, its customer otherwise (whose storefront prices it).
    func purchaser(of chain: SubscriptionChain) -> String {
        chain.purchaserPosition >= 0 ? directory.names[chain.purchaserPosition] : chain.customer
    }

    /// The monthly price `purchaser`'s commitment in `group` keeps after the plan's price rose during it (rule
    /// commitment-price-increase-at-commitment-renewal); `nil` when it keeps none.
    func keptCommitmentPrice(of purchaser: String, inGroup group: String) -> (price: Price, currency: String)? {
        commitmentPriceLocks.kept(of: purchaser, inGroup: group)
    }

    /// The monthly plan's price of `productId` in `storefront` (``Catalog/monthlyCommitmentPrice(of:in:)``).
    func monthlyCommitmentPrice(of productId: String, in storefront: Storefront) -> (price: Price, currency: String)? {
        catalog.monthlyCommitmentPrice(of: productId, in: storefront)
    }

    /// Rule commitment-renewal-info (``CommitmentRenewalInfo/add(_:of:state:purchaser:storefront:catalog:schedule:locks:to:)``),
    /// with the purchaser's storefront and the store's parts read in place.
    func addCommitment(
        _ commitment: CommitmentState, of chain: SubscriptionChain, state: SubscriptionState,
        to snapshot: inout RenewalSnapshot
    ) {
        let purchaser = purchaser(of: chain)
        CommitmentRenewalInfo.add(
            commitment, of: chain, state: state, purchaser: purchaser, storefront: storefront(of: purchaser),
            catalog: catalog, schedule: priceIncreaseSchedule, locks: commitmentPriceLocks, to: &snapshot)
    }

    /// Rule billing-plan-switch-at-renewal outside a commitment
    /// (``CommitmentRenewalInfo/addPendingMonthlyPlan(_:of:storefront:catalog:schedule:to:)``).
    func addPendingMonthlyPlan(
        _ change: PurchaseRequest, of chain: SubscriptionChain, to snapshot: inout RenewalSnapshot
    ) {
        CommitmentRenewalInfo.addPendingMonthlyPlan(
            change, of: chain, storefront: storefront(of: purchaser(of: chain)), catalog: catalog,
            schedule: priceIncreaseSchedule, to: &snapshot)
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
