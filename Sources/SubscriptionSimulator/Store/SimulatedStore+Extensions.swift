/// Renewal-date extensions, of one subscription or of every purchaser (reference §5.13, S-EXT, S-EXT-INELIG, S-EXT-FS;
/// the table's rows in `Lifecycle/TransitionTable.swift`), and the app's opening (the billing-issue message).
extension SimulatedStore {
    /// The developer extends the renewal date of the customer's subscription to `productId` by `days` (1 to 90):
    /// `RENEWAL_EXTENDED` to the purchaser and to each family member who has the share (reference §1.3, A-17). The
    /// current transaction is re-signed with the later `expiresDate`; no new transaction is created. Returns the
    /// extension's record (`ExtendRenewalDateResponse`'s values).
    ///
    /// Errors name the rule and Apple's error code: a member's share (4030007), an ineligible state (4030004), a
    /// third extension in 365 days (4030005), `days` outside 1...90 (4000009). A `requestIdentifier` that already
    /// extended this subscription is answered with that extension's record again, extending and sending nothing (rule
    /// extension-request-identifier-once [assumed], ``ServerRequestRecords``); without one every call extends.
    @discardableResult
    public mutating func extendRenewalDate(
        _ productId: String, for customer: String, days: Int, reason: ExtendReasonCode = .undeclared,
        requestIdentifier: String? = nil
    ) throws(StoreError) -> RenewalExtensionRecord {
        let product = try requireProduct(productId)
        try subscriptionBook.refuseMemberShare(
            among: chainKeys(of: customer), of: product.id, ownChain: chainKey(customer, product), customer: customer)
        let key = try requireChain(productId, customer)
        let originalTransactionId = subscriptionBook.chains[key.index].originalTransactionId
        if let earlier = serverRequests.earlierExtension(
            of: originalTransactionId, requestIdentifier: requestIdentifier)
        {
            return earlier  // rule extension-request-identifier-once
        }
        try extend(key, days: days)
        refreshEntitlements()
        let record = RenewalExtensionRecord(
            extended: ledger.transactions[subscriptionBook.chains[key.index].currentTransactionIndex],
            of: originalTransactionId, requestIdentifier: requestIdentifier, at: now)
        serverRequests.recordExtension(record)
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

    /// Extend Subscription Renewal Dates for All Active Subscribers: every purchaser whose subscription to
    /// `productId` has not ended (``SubscriptionBook/massExtensionConsiders(chainAt:of:)``), optionally only in the
    /// given storefronts, is considered. Returns the `summary` values. `days` outside 1...90 refuses the whole
    /// request (4000009) and sends nothing.
    ///
    /// An eligible subscription is extended as by ``extendRenewalDate(_:for:days:reason:requestIdentifier:)``
    /// (`RENEWAL_EXTENDED` to them and their family members), unless ``failNextRenewalExtension(_:for:)`` marked it:
    /// then `RENEWAL_EXTENSION` / `FAILURE` about it; an ineligible one is skipped (rule
    /// mass-extension-extends-eligible-only, ``SubscriptionBook/massExtensionStep(_:days:app:at:)``). Then
    /// `RENEWAL_EXTENSION` / `SUMMARY` about the app (rule mass-extension-summary, ``MassExtension/summary``). A
    /// `requestIdentifier` the store already completed for the product is answered with that request's summary,
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
        for index in subscriptionBook.chains.indices
        where request.considers(
            chainAt: index, in: subscriptionBook, storefront: storefront(of: subscriptionBook.chains[index].customer))
        {
            switch subscriptionBook.massExtensionStep(ChainID(index: index), days: days, app: app, at: now) {
            case .skip: continue
            case .fail:
                request.noteFailed()
                let chain = subscriptionBook.chains[index]
                send(
                    .renewalExtension, .failure, to: chain.customer,
                    transaction: ledger.transactions[chain.currentTransactionIndex],
                    renewal: renewalSnapshot(of: chain, state: chain.state), status: chain.state.phase)
            case .extend:
                do throws(StoreError) {
                    try extend(ChainID(index: index), days: days)
                    request.noteSucceeded()
                } catch let error where MassExtension.skips(error) {}  // rule mass-extension-extends-eligible-only
            }
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
        subscriptionBook.failNextExtension(of: try requireChain(productId, customer))
    }

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
