extension SimulatedStore {
    /// The customer opens the app on their device. For each of their own subscriptions whose renewal is failing for
    /// a billing issue (``SubscriptionBook/billingIssues(among:)``), StoreKit delivers a `Message` with reason
    /// `.billingIssue` (the in-app billing problem sheet, iOS 16.4+), seen in ``deviceEvents(for:)``; each opening
    /// shows it again [assumed: Apple does not say how often StoreKit repeats it]. Sends no notification.
    public mutating func openApp(for customer: String) {
        addCustomer(customer)
        let issues = subscriptionBook.billingIssues(among: chainKeys(of: customer))
        emissions.recordAppOpen(at: now, customer: customer, billingIssues: issues)
    }
}

/// Renewal-date extensions: Extend a Subscription Renewal Date (one subscription) and Extend Subscription Renewal
/// Dates for All Active Subscribers (every purchaser of a product). Rules: reference §5.13, S-EXT, S-EXT-INELIG,
/// S-EXT-FS; the table rows are in `Lifecycle/TransitionTable.swift` (the renewal-date extension rows).
extension SimulatedStore {
    /// The developer extends the renewal date of the customer's subscription to `productId` by `days` (1 to 90):
    /// `RENEWAL_EXTENDED` to the purchaser and to each family member who has the share (reference §1.3, A-17). The
    /// current transaction is re-signed with the later `expiresDate`; no new transaction is created.
    ///
    /// Errors name the rule and Apple's error code: a member's share (4030007), an ineligible state (4030004), a
    /// third extension in 365 days (4030005), `days` outside 1...90 (4000009).
    ///
    /// **extension-request-identifier-once** [assumed]: a `requestIdentifier` ("a unique identifier you provide to
    /// track each subscription-renewal-date extension request", Apple's `requestIdentifier` page) that already
    /// extended this subscription is answered with that extension's record again, without extending twice or
    /// sending anything: a client retrying a request it did not see answered must not spend one of the two
    /// extensions a year. Apple does not say what a repeated identifier does. Without an identifier every call
    /// extends. Returns the extension's record (`ExtendRenewalDateResponse`'s values).
    @discardableResult
    public mutating func extendRenewalDate(
        _ productId: String, for customer: String, days: Int, reason: ExtendReasonCode = .undeclared,
        requestIdentifier: String? = nil
    ) throws(StoreError) -> RenewalExtensionRecord {
        let product = try requireProduct(productId)
        if let memberChain = subscriptionBook.memberShareToRefuse(
            among: chainKeys(of: customer), of: product.id, ownChain: chainKey(customer, product))
        {
            throw .lifecycle(
                .familySharedExtension, customer: customer,
                productId: subscriptionBook.chains[memberChain.index].state.productId)
        }
        let key = try requireChain(productId, customer)
        let originalTransactionId = subscriptionBook.chains[key.index].originalTransactionId
        if let requestIdentifier,
            let earlier = renewalExtension(
                originalTransactionId: originalTransactionId, requestIdentifier: requestIdentifier)
        {
            return earlier  // rule extension-request-identifier-once
        }
        try extend(key, days: days)
        refreshEntitlements()
        let current = ledger.transactions[subscriptionBook.chains[key.index].currentTransactionIndex]
        let record = RenewalExtensionRecord(
            originalTransactionId: originalTransactionId, requestIdentifier: requestIdentifier,
            webOrderLineItemId: current.webOrderLineItemId, effectiveDate: current.expiresDate, extendedAt: now)
        if requestIdentifier != nil { serverRequests.record(record) }
        return record
    }

    /// The extension of the subscription `originalTransactionId` that `requestIdentifier` made, if any (rule
    /// extension-request-identifier-once).
    public func renewalExtension(originalTransactionId: String, requestIdentifier: String) -> RenewalExtensionRecord? {
        serverRequests.renewalExtension(
            originalTransactionId: originalTransactionId, requestIdentifier: requestIdentifier)
    }

    /// One extension of a purchaser's chain through the table; records its instant when it succeeds.
    mutating func extend(_ key: ChainID, days: Int) throws(StoreError) {
        try apply(.renewalDateExtended(subscriptionBook.extensionRequest(key, days: days, at: now)), to: key)
        subscriptionBook.noteExtension(of: key, at: now)
    }

    /// Moves `expiresDate` of the purchaser's current transaction and of each sharing member's current transaction
    /// (members are extended with their purchaser, S-EXT-FS). The purchaser's chain is held by the caller.
    ///
    /// `commitmentExpiresDate`: the commitment's end after the extension (rule commitment-extension-shift), written into
    /// each extended transaction's `commitmentInfo` too, so that a transaction's `commitmentExpiresDate` always equals
    /// its renewal info's `commitmentRenewalDate` (Appendix E P10).
    mutating func extendTransactions(
        of key: ChainID, current: Int, to expiresDate: Instant, commitmentExpiresDate: Instant? = nil
    ) {
        ledger.extend(current, to: expiresDate, commitmentExpiresDate: commitmentExpiresDate, at: now)
        for index in familyBook.fanOutCurrentTransactions(of: key, in: subscriptionBook) {
            ledger.extend(index, to: expiresDate, commitmentExpiresDate: commitmentExpiresDate, at: now)
        }
    }
}

extension SimulatedStore {
    /// Extend Subscription Renewal Dates for All Active Subscribers: every purchaser whose subscription to
    /// `productId` has not ended (``SubscriptionBook/massExtensionConsiders(chainAt:of:)``), optionally only in the
    /// given storefronts, is considered. Returns the `summary` values. `days` outside 1...90 refuses the whole
    /// request (4000009) and sends nothing.
    ///
    /// **mass-extension-extends-eligible-only**: "the App Store attempts to extend eligible subscriptions only"
    /// (S-EXT-MASS, Extend Subscription Renewal Dates for All Active Subscribers). A subscription in a state Apple's
    /// page lists as ineligible (S-EXT-INELIG: a free offer period, inactive billing retry, a grace period whose
    /// expiration date has passed, two extensions in the past 365 days, expired) is skipped: no notification, not
    /// counted in `failedCount` or `succeededCount`. An eligible one is extended as by
    /// ``extendRenewalDate(_:for:days:reason:)`` (`RENEWAL_EXTENDED` to them and their family members), unless
    /// ``failNextRenewalExtension(_:for:)`` marked it: then `RENEWAL_EXTENSION` / `FAILURE` about it (S-NT documents
    /// the subtype, not a cause: the mark is [assumed]).
    ///
    /// **mass-extension-summary**: `RENEWAL_EXTENSION` / `SUMMARY`, a notification about the app with a `summary`
    /// object, is sent once per request "when the App Store server completes your request" (S-ST `SUMMARY`;
    /// reference §2.4), after every `RENEWAL_EXTENDED` and `FAILURE` of the request. Apple completes the request
    /// asynchronously and does not say how long it takes: the simulator completes it at the instant of the request
    /// [assumed]. `succeededCount` counts the purchasers extended (members, who follow them, are not counted) and
    /// `failedCount` those who received `FAILURE` [assumed: Apple counts "subscriptions"].
    ///
    /// A `requestIdentifier` the store already completed for the product is answered with that request's summary,
    /// extending and sending nothing (rule extension-request-identifier-once [assumed]).
    public mutating func extendRenewalDatesForAllActiveSubscribers(
        _ productId: String, days: Int, reason: ExtendReasonCode = .undeclared, requestIdentifier: String,
        storefrontCountryCodes: [String] = []
    ) throws(StoreError) -> RenewalExtensionSummary {
        _ = try requireProduct(productId)
        var request = try MassExtension(
            productId: productId, days: days, requestIdentifier: requestIdentifier,
            storefrontCountryCodes: storefrontCountryCodes)
        if let earlier = massExtension(productId: productId, requestIdentifier: requestIdentifier) {
            return earlier.summary  // rule extension-request-identifier-once: no second request
        }
        // The table's view of the subscription now, asked without changing anything.
        let context = LifecycleContext(
            now: now, paymentSucceeds: true, productForSale: true, gracePeriod: app.gracePeriod,
            graceEligibility: app.graceEligibility)
        for index in subscriptionBook.chains.indices
        where request.considers(
            chainAt: index, in: subscriptionBook, storefront: storefront(of: subscriptionBook.chains[index].customer))
        {
            let key = ChainID(index: index)
            // Rule mass-extension-extends-eligible-only.
            if subscriptionBook.extensionIneligible(key, days: days, in: context) { continue }
            if subscriptionBook.takeFailingExtension(of: key) {
                request.noteFailed()
                let chain = subscriptionBook.chains[index]
                send(
                    .renewalExtension, .failure, to: chain.customer,
                    transaction: ledger.transactions[chain.currentTransactionIndex],
                    renewal: renewalSnapshot(of: chain, state: chain.state), status: chain.state.phase)
                continue
            }
            do throws(StoreError) {
                try extend(key, days: days)
                request.noteSucceeded()
            } catch let error where MassExtension.skips(error) {}  // rule mass-extension-extends-eligible-only
        }
        let summary = request.summary
        sendAboutTheApp(.renewalExtension, .summary, summary: summary)
        serverRequests.recordMassExtension(summary, completedAt: now)
        refreshEntitlements()
        return summary
    }

    /// [assumed] The developer's next mass extension of `productId` fails for `customer`'s subscription if it is
    /// eligible then: `RENEWAL_EXTENSION` / `FAILURE` about it, counted in `failedCount`. Apple documents the
    /// `FAILURE` subtype ("the renewal-date extension failed for an individual subscription", S-ST) but no cause, so
    /// a scenario states the failure. The mark is used by one request and then cleared.
    public mutating func failNextRenewalExtension(_ productId: String, for customer: String) throws(StoreError) {
        let key = try requireChain(productId, customer)
        subscriptionBook.failNextExtension(of: key)
    }
}
