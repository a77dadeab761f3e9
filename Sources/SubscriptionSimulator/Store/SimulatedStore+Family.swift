/// Family Sharing: family groups, sharing switches, the family delay, fan-out of notifications to members, REVOKE.
/// Facts: reference §1.3, §4 and §7; rules by name in ``FamilyRules`` and the parts (`Store/FamilyBook*.swift`).
extension SimulatedStore {
    // MARK: - Family groups

    /// Creates a family with `organizer` and, in join order, `members` (joining carries no delay, §4.4).
    public mutating func createFamily(organizer: String, members: [String] = []) throws(StoreError) {
        addCustomer(organizer)
        try familyBook.checkCanCreateFamily(organizer: organizer)
        familyBook.createFamily(organizer: organizer)
        for member in members { try joinFamily(member, organizer: organizer) }
    }

    /// `customer` joins the family `organizer` leads (or the only family, when `organizer` is nil). Members get
    /// access to eligible shared purchases as soon as they are in the group: no family delay (§4.2, §4.4).
    public mutating func joinFamily(_ customer: String, organizer: String? = nil) throws(StoreError) {
        let index = try familyBook.familyToJoin(customer, organizer: organizer)
        // After the rules: a refused join does not name a new customer.
        addCustomer(customer)
        familyBook.add(customer, toFamilyAt: index)
        try transition(
            familyBook.joinOffers(
                inFamily: index, directory: directory, subscriptions: subscriptionBook, ledger: ledger, catalog: catalog
            ))
        refreshEntitlements()
    }

    /// `customer` leaves their family. Members lose what was shared with them through `customer`, and `customer`
    /// loses what others shared (REVOKE, §4.6). The organizer leaving disbands the family: everyone loses every share.
    public mutating func leaveFamily(_ customer: String) throws(StoreError) {
        let (index, ended) = try familyBook.sharesEndedByLeaving(customer)
        for id in ended { try endShare(id, reason: 0) }
        familyBook.leave(customer, familyAt: index)
        refreshEntitlements()
    }

    // MARK: - Sharing switches

    /// The purchaser's "Share With Family" main switch, for new purchases only
    /// (``FamilyBook/setShareWithFamily(_:for:)``: rule share-with-family-switch).
    public mutating func setShareWithFamily(_ enabled: Bool, for customer: String) throws(StoreError) {
        try familyBook.setShareWithFamily(enabled, for: customer)
        // After the rule: a refused switch does not name a new customer.
        addCustomer(customer)
    }

    /// The purchaser turns sharing off for one subscription or non-consumable: members lose it (REVOKE, reason 0;
    /// rules in `Store/FamilyBook+Switches.swift`).
    public mutating func stopSharing(_ productId: String, by customer: String) throws(StoreError) {
        let product = try requireProduct(productId)
        let source = try FamilyBook.switchedPurchase(
            product, by: customer, chain: product.type == .autoRenewable ? requireChain(productId, customer) : nil,
            oneTime: unrefundedOneTimePurchase(productId, of: customer))
        let ended = try familyBook.stopSharing(source, of: product, by: customer, subscriptions: &subscriptionBook)
        for id in ended { try endShare(id, reason: 0) }
        refreshEntitlements()
    }

    /// The purchaser turns sharing on for a purchase they already have: members get it at once (a member who had it
    /// before gets SUBSCRIBED / RESUBSCRIBE, §1.1); rules in `Store/FamilyBook+Switches.swift`.
    public mutating func startSharing(_ productId: String, by customer: String) throws(StoreError) {
        let product = try requireProduct(productId)
        try FamilyBook.checkCanStartSharing(product)
        let source = try FamilyBook.switchedPurchase(
            product, by: customer, chain: product.type == .autoRenewable ? requireChain(productId, customer) : nil,
            oneTime: unrefundedOneTimePurchase(productId, of: customer))
        try familyBook.startSharing(source, of: product, by: customer, subscriptions: &subscriptionBook)
        try transition(
            familyBook.offers(
                of: source, toFamilyOf: customer, subscriptions: subscriptionBook, ledger: ledger, catalog: catalog))
        refreshEntitlements()
    }

    /// The developer turns Family Sharing on for a product, for good; existing purchases are shared only after an
    /// opt-in or a restore (``FamilyBook/madeShareable(_:)``).
    public mutating func makeFamilyShareable(_ productId: String) throws(StoreError) {
        let product = try FamilyBook.madeShareable(requireProduct(productId))
        do throws(CatalogError) { try catalog.replace(product) } catch { throw .catalog(error) }
    }

    /// Always refused (``FamilyBook/turnOffRefusal(_:)``: rule family-sharing-cannot-be-turned-off).
    public mutating func turnOffFamilySharing(_ productId: String) throws(StoreError) {
        throw FamilyBook.turnOffRefusal(try requireProduct(productId))
    }

    /// The customer restores purchases on their device: StoreKit re-delivers their non-consumables as restored, and
    /// a family member receives the shared non-consumables they did not have
    /// (``FamilyBook/restoredShares(for:directory:subscriptions:ledger:catalog:)``: reference §4.5, §7.2; B-11).
    public mutating func restorePurchases(for customer: String) throws(StoreError) {
        requireHistory("restorePurchases(for:)")
        addCustomer(customer)
        try transition(
            familyBook.restoredShares(
                for: customer, directory: directory, subscriptions: subscriptionBook, ledger: ledger, catalog: catalog))
        emissions.recordRestore(at: now, customer: customer, transactions: ledger.restoredNonConsumables(of: customer))
        refreshEntitlements()
    }

    // MARK: - Shares (who shares what: FamilyBook; member transactions: TransactionLedger+Family)

    /// The customer's latest own purchase of a one-time product that is not refunded (an index in the ledger).
    func unrefundedOneTimePurchase(_ productId: String, of customer: String) -> Int? {
        ledger.unrefundedOneTimePurchase(productId, ofCustomerAt: directory.positions[customer], in: directory)
    }

    /// A new purchase: shared by ``FamilyBook/startSharingNewPurchase(chain:of:subscriptions:)``, the delay starts.
    mutating func startSharingNewPurchase(chain key: ChainID, product: Product) throws(StoreError) {
        if let purchaser = familyBook.startSharingNewPurchase(chain: key, of: product, subscriptions: &subscriptionBook)
        {
            try scheduleShares(of: .subscription(chain: key), purchaser: purchaser)
        }
    }

    /// Starts the family delay for every other person in the purchaser's family (rule family-delay).
    mutating func scheduleShares(of source: Share.Source, purchaser: String) throws(StoreError) {
        try transition(familyBook.delayedShares(of: source, purchaser: purchaser, grantAt: now.adding(app.familyDelay)))
    }

    /// The family delay is over for one share.
    mutating func deliverPendingShare(_ id: Int) throws(StoreError) {
        try transition(
            share: id,
            familyBook.delayEndedInput(ofShare: id, subscriptions: subscriptionBook, ledger: ledger, catalog: catalog))
    }

    /// Ends a share (``ShareInput/ended(reason:)``, A-6); `reason`: 0, or the purchaser's on a refund.
    mutating func endShare(_ id: Int, reason: Int32) throws(StoreError) {
        try transition(share: id, .ended(reason: reason))
    }

    /// A resubscription is a new purchase: members wait for the delay again, so the old grants stop mirroring.
    mutating func suspendShares(of key: ChainID) throws(StoreError) {
        for id in familyBook.sharesOf(.subscription(chain: key)) { try transition(share: id, .purchaserResubscribed) }
    }

    /// Runs the moves a share operation of the ``FamilyBook`` returns, in order.
    mutating func transition(_ moves: [ShareMove]) throws(StoreError) {
        for (id, input) in moves { try transition(share: id, input) }
    }

    /// Runs one transition of a share (``FamilyBook/apply(_:toShare:)``) and carries out its effects. `purchaser`: the
    /// purchaser's subscription as a notification about it reports it, during its transition.
    mutating func transition(share id: Int, _ input: ShareInput, purchaser: PurchaserView? = nil) throws(StoreError) {
        for effect in familyBook.apply(input, toShare: id) {
            switch effect {
            case .scheduleGrant(let at):
                let group = eventGroup(ofCustomerAt: directory.positions[familyBook.shares[id].purchaser])
                try familyBook.scheduleGrant(ofShare: id, at: at, group: group, scheduler: &scheduler)
            case .cancelGrant:
                if let event = familyBook.grantEvent(of: id) { scheduler.cancel(event) }
            case .grant(let restored):
                grant(share: id, restored: restored, purchaser: purchaser)
            case .notifyMember(let type, let subtype):
                guard let memberKey = familyBook.shares[id].memberChain, let purchaser else { continue }
                subscriptionBook.mirror(purchaser.state, on: memberKey)
                sendAboutChain(memberKey, type, subtype, state: purchaser.state)
            case .revokeMember(let reason):
                revokeMember(share: id, reason: reason)
            }
        }
    }

    /// Sends `type` and `subtype` to the customer of chain `key` about its current transaction, reporting `state`
    /// (nil: the chain's own, read in place).
    private mutating func sendAboutChain(
        _ key: ChainID, _ type: NotificationType, _ subtype: NotificationSubtype?, state: SubscriptionState? = nil
    ) {
        let chain = subscriptionBook.chains[key.index]
        send(
            type, subtype, to: chain.customer, transaction: ledger.transactions[chain.currentTransactionIndex],
            renewal: state.map { renewalSnapshot(of: chain, state: $0) } ?? renewalSnapshot(of: chain),
            status: state?.phase ?? chain.state.phase)
    }

    /// ``ShareEffect/grant(restored:)``: the member's own transaction (and chain, the ``FamilyBook``'s `memberChain`,
    /// or the one they had) and `SUBSCRIBED` (`INITIAL_BUY`, or `RESUBSCRIBE` to a member who had the share before,
    /// §1.1) describing `purchaser` (read from the book when nil), or `ONE_TIME_CHARGE` for a non-consumable.
    mutating func grant(share id: Int, restored: Bool, purchaser view: PurchaserView?) {
        let member = familyBook.shares[id].member
        guard case .subscription(let key) = familyBook.shares[id].source else {
            let record = familyBook.grantNonConsumable(
                share: id, transactionId: nextTransactionId(for: member), ledger: ledger, at: now)
            appendTransaction(record)
            // ONE_TIME_CHARGE: also sent when a customer receives a non-consumable through Family Sharing (§1.1, S-NT).
            return sendAboutTransaction(.oneTimeCharge, ledger.nextIndex - 1, restored: restored)
        }
        let purchaser = view ?? PurchaserView(key, in: subscriptionBook, ledger: ledger)
        let existing = familyBook.shares[id].memberChain
        let dates = familyBook.memberGrantDates(
            ofShare: id, purchaser: purchaser, subscriptions: subscriptionBook, at: now)
        let memberKey =
            existing
            ?? insertChain(
                FamilyBook.memberChain(
                    for: familyBook.shares[id], purchaser: purchaser,
                    originalTransactionId: nextTransactionId(for: member),
                    originalPurchaseDate: dates.originalPurchaseDate, directory: directory))
        subscriptionBook.mirror(purchaser.state, on: memberKey)
        appendMemberTransaction(memberKey, like: purchaser.record, purchaseDate: dates.purchaseDate, reason: .purchase)
        familyBook.grant(id, memberChain: memberKey)
        sendAboutChain(memberKey, .subscribed, existing == nil ? .initialBuy : .resubscribe)
    }

    /// Appends the member's transaction (the ``TransactionLedger``'s `memberSubscriptionTransaction`, its ids by rule
    /// ids-per-customer), made the current one of the member's chain.
    mutating func appendMemberTransaction(
        _ memberKey: ChainID, like purchaserRecord: TransactionRecord, purchaseDate: Instant, reason: ChargeReason,
        currency: String? = nil
    ) {
        let chain = subscriptionBook.chains[memberKey.index]
        let owner = position(of: chain) ?? register(chain.customer)
        let record = TransactionLedger.memberSubscriptionTransaction(
            of: chain, ownerAt: owner, like: purchaserRecord, purchaseDate: purchaseDate, reason: reason,
            currency: currency, directory: &directory, ids: ids, at: now)
        subscriptionBook.noteTransaction(at: ledger.nextIndex, of: memberKey)
        appendTransaction(record)
    }

    /// Charges each of the purchaser's fan-out targets (``FamilyBook/fanOutTargets(of:)``) at the same instant, no
    /// delay (§4.4, §4.5), from the purchaser's `record` as built, in the product's `currency`.
    mutating func chargeMembers(sharing key: ChainID, like record: TransactionRecord, currency: String) {
        for memberKey in familyBook.fanOutTargets(of: key) {
            appendMemberTransaction(
                memberKey, like: record, purchaseDate: record.purchaseDate, reason: record.reason, currency: currency)
        }
    }

    /// Fan-out: after the purchaser's notification, each share moves through ``ShareTransition`` in family order
    /// (rules member-notifications and share-held-during-billing-retry; ordering A-19); `purchaser` holds the
    /// purchaser's current transaction and the state the notification reports.
    mutating func notifyMembers(
        sharing key: ChainID, _ type: NotificationType, _ subtype: NotificationSubtype?, purchaser: PurchaserView,
        refundReason: Int32
    ) throws(StoreError) {
        for id in familyBook.sharesOf(.subscription(chain: key)) {
            try transition(
                share: id,
                .purchaserNotified(type, subtype, purchaserPhase: purchaser.state.phase, refundReason: refundReason),
                purchaser: purchaser)
        }
    }

    /// ``ShareEffect/revokeMember(reason:)``: what the member still has (``FamilyBook``'s `accessToRevoke`) is
    /// revoked (``TransactionLedger/revokeFamilyShared(_:reason:at:)``) and they get REVOKE, status 5.
    mutating func revokeMember(share id: Int, reason: Int32) {
        guard let access = familyBook.accessToRevoke(ofShare: id, subscriptions: subscriptionBook, ledger: ledger)
        else { return }
        ledger.revokeFamilyShared(access.transaction, reason: reason, at: now)
        guard case .chain(let memberKey, _) = access else { return sendAboutTransaction(.revoke, access.transaction) }
        // Rule renewal-info-agrees-with-status: a REVOKE during grace or retry ends them for this member.
        subscriptionBook.revokeMember(memberKey, at: now)
        sendAboutChain(memberKey, .revoke, nil)
    }
}
