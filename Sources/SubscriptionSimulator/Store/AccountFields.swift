/// Account-level fields of transactions and renewal info as a read model (issue 44, item 1): `storefront` /
/// `storefrontId`, the price in that storefront, `appTransactionId` and `appAccountToken`, worked out from the customer
/// directory, what Set App Account Token left (``ServerRequestRecords``), the commitment locks and the catalogue.
/// Stateless: the store passes its parts in place (no copies; this runs on every charge and every renewal info).
enum AccountFields {
    /// The `appAccountToken` of `customer`'s purchase `originalTransactionId` (transactions and renewal info): the one
    /// Set App Account Token gave this purchase, which takes precedence over the one the app supplies with later
    /// purchases, for this purchase only [assumed]; else the one the customer's app supplied (read in place: this runs
    /// on every charge).
    @inline(__always)
    static func appAccountToken(
        of customer: String, purchase originalTransactionId: String, directory: CustomerDirectory,
        serverRequests: ServerRequestRecords
    ) -> String? {
        if let set = serverRequests.appAccountToken(forOriginalTransactionId: originalTransactionId) { return set }
        return directory.appAccountTokens[customer]
    }

    /// The record with its customer's account fields. A purchaser's transaction is priced in their storefront and
    /// carries the `appAccountToken` their app supplied with their latest purchase that had one (from that purchase
    /// on); a family member's keeps the purchaser's price and currency and carries no `appAccountToken` (§4.5).
    /// `customerAt`: the customer's position in the directory; `productAt`: the product's place in the catalogue, when
    /// the caller knows it; `defaultStorefront`: the app's.
    static func add(
        to record: inout TransactionRecord, customerAt position: Int, productAt product: Int?,
        directory: CustomerDirectory, serverRequests: ServerRequestRecords, locks: CommitmentPriceLocks,
        catalog: Catalog, defaultStorefront: Storefront
    ) {
        // Read once and set together: the fields live in the record's shared box, which is replaced only when one
        // of them changes (a renewal's are its previous transaction's).
        let storefront = directory.storefront(of: record.customer, default: defaultStorefront)
        var token: String? = nil
        var currency = record.currency
        switch record.ownership {
        case .purchased:
            token = appAccountToken(
                of: record.customer, purchase: record.originalTransactionId, directory: directory,
                serverRequests: serverRequests)
            // The monthly price the purchaser's commitment keeps after the plan's price rose during it (rule
            // commitment-price-increase-at-commitment-renewal), else the plan's price in the storefront.
            let monthly =
                record.commitment == nil
                ? nil
                : locks.kept(of: record.customer, inGroup: record.subscriptionGroupIdentifier ?? "")
                    ?? catalog.monthlyCommitmentPrice(of: record.productId, in: storefront)
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
    /// purchaser's storefront (a member's share renews at the purchaser's price, A-15). `productAt`: the renewing
    /// product's place in the catalogue.
    static func add(
        of chain: SubscriptionChain, productAt product: Int, to snapshot: inout RenewalSnapshot,
        directory: CustomerDirectory, serverRequests: ServerRequestRecords, catalog: Catalog,
        defaultStorefront: Storefront
    ) {
        let position = chain.customerPosition >= 0 ? chain.customerPosition : directory.positions[chain.customer]
        snapshot.appTransactionId = position.map { directory.records[$0].appTransactionId } ?? ""
        if chain.ownership == .purchased {
            snapshot.appAccountToken = appAccountToken(
                of: chain.customer, purchase: chain.originalTransactionId, directory: directory,
                serverRequests: serverRequests)
        }
        let storefront = directory.storefront(of: directory.purchaser(of: chain), default: defaultStorefront)
        if let priced = catalog.storefrontPrice(ofProductAt: product, offer: snapshot.upcomingOffer, in: storefront) {
            if snapshot.renewalPrice != nil { snapshot.renewalPrice = priced.price }
            snapshot.currency = priced.currency
        }
    }
}
