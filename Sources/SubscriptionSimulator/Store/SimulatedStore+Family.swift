/// Family Sharing: family groups, sharing switches, the family delay, fan-out of notifications to members, REVOKE.
/// Facts: reference §1.3, §4 and §7; rules by name in ``FamilyRules``.
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
        // Purchases already shared in the family reach the newcomer now; the newcomer's shared purchases reach the
        // family now.
        for source in familyBook.sharedSources(
            inFamily: index, directory: directory, subscriptions: subscriptionBook, ledger: ledger, catalog: catalog)
        {
            try offerShare(of: source, to: familyBook.families[index].everyone)
        }
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

    /// The purchaser's "Share With Family" main switch (Apple Support: "Share New Subscriptions"). On by default; it
    /// governs new purchases only and never unshares an existing one (reference §4.3, Appendix B-14).
    public mutating func setShareWithFamily(_ enabled: Bool, for customer: String) throws(StoreError) {
        guard familyBook.sharesNewPurchases(customer) != enabled else {
            throw .family(.mainSwitchAlreadySet(customer: customer, enabled: enabled))
        }
        // After the rule: a refused switch does not name a new customer.
        addCustomer(customer)
        familyBook.setSharesNewPurchases(enabled, for: customer)
    }

    /// The purchaser turns sharing off for one subscription or non-consumable: members lose it (REVOKE, reason 0).
    /// Inside the family delay, members never receive it (reference §4.4, Appendix A-6).
    public mutating func stopSharing(_ productId: String, by customer: String) throws(StoreError) {
        let product = try requireProduct(productId)
        switch product.type {
        case .autoRenewable:
            let key = try requireChain(productId, customer)
            try subscriptionBook.stopSharing(key, customer: customer, productId: productId)
            for id in familyBook.sharesEnded(bySwitchingOff: .subscription(chain: key)) { try endShare(id, reason: 0) }
        case .nonConsumable:
            guard let index = unrefundedOneTimePurchase(productId, of: customer) else {
                throw .family(.nothingToShare(customer: customer, productId: productId))
            }
            let ended = try familyBook.stopSharing(
                nonConsumable: index, shareable: product.familyShareable, customer: customer, productId: productId)
            for id in ended { try endShare(id, reason: 0) }
        case .consumable, .nonRenewing:
            throw .family(.typeCannotBeShared(productId: productId, type: product.type))
        }
        refreshEntitlements()
    }

    /// The purchaser turns sharing on for a purchase they already have: members get it at once, no delay
    /// (reference §4.4; S-RC-BLOG, S-TT-FS). A member who had it before gets SUBSCRIBED / RESUBSCRIBE (§1.1).
    public mutating func startSharing(_ productId: String, by customer: String) throws(StoreError) {
        let product = try requireProduct(productId)
        guard FamilyRules.canBeShared(product.type) else {
            throw .family(.typeCannotBeShared(productId: productId, type: product.type))
        }
        guard product.familyShareable else { throw .family(.notShareable(productId: productId)) }
        let source: Share.Source
        switch product.type {
        case .autoRenewable:
            let key = try requireChain(productId, customer)
            try subscriptionBook.startSharing(key, customer: customer, productId: productId)
            source = .subscription(chain: key)
        case .nonConsumable, .consumable, .nonRenewing:
            guard let index = unrefundedOneTimePurchase(productId, of: customer) else {
                throw .family(.nothingToShare(customer: customer, productId: productId))
            }
            try familyBook.startSharing(nonConsumable: index, customer: customer, productId: productId)
            source = .nonConsumable(transactionIndex: index)
        }
        if let family = familyBook.family(of: customer) {
            try offerShare(of: source, to: familyBook.families[family].everyone)
        }
        refreshEntitlements()
    }

    /// The developer turns Family Sharing on for a product. It cannot be turned off again (§4.1). Existing
    /// subscribers share only after they opt in (`startSharing`); family members get an existing non-consumable
    /// only when they restore purchases (reference §4.3, §4.5; S-TT-FS, S-FSA).
    public mutating func makeFamilyShareable(_ productId: String) throws(StoreError) {
        var product = try requireProduct(productId)
        guard FamilyRules.canBeShared(product.type) else {
            throw .family(.typeCannotBeShared(productId: productId, type: product.type))
        }
        guard !product.familyShareable else { throw .family(.alreadyShareable(productId: productId)) }
        product.familyShareable = true
        do throws(CatalogError) { try catalog.replace(product) } catch { throw .catalog(error) }
    }

    /// Family Sharing cannot be turned off for a product once on (reference §4.1; S-FSA, S-TT-FS).
    public mutating func turnOffFamilySharing(_ productId: String) throws(StoreError) {
        let product = try requireProduct(productId)
        if product.familyShareable { throw .family(.cannotTurnOffFamilySharing(productId: productId)) }
        throw .family(.notShareable(productId: productId))
    }

    /// The customer restores purchases on their device: StoreKit re-delivers their non-consumables as restored.
    /// A family member receives a non-consumable that became shareable after it was bought only now, through
    /// restore (reference §4.5, §7.2; S-FSA). **[assumed]** (Appendix B-11): that member's transaction and its
    /// ONE_TIME_CHARGE are created at the restore.
    public mutating func restorePurchases(for customer: String) throws(StoreError) {
        requireHistory("restorePurchases(for:)")
        addCustomer(customer)
        for source in familyBook.restorableSources(
            for: customer, directory: directory, subscriptions: subscriptionBook, ledger: ledger, catalog: catalog)
        {
            try transition(share: share(of: source, with: customer), .restored)
        }
        emissions.recordRestore(at: now, customer: customer, transactions: ledger.restoredNonConsumables(of: customer))
        refreshEntitlements()
    }

    // MARK: - Shares (who shares what: FamilyBook; member transactions: TransactionLedger+Family)

    /// The customer's latest own purchase of a one-time product that is not refunded (an index in the ledger).
    func unrefundedOneTimePurchase(_ productId: String, of customer: String) -> Int? {
        ledger.unrefundedOneTimePurchase(productId, ofCustomerAt: directory.positions[customer], in: directory)
    }

    /// The share of `source` with `member`, created (ended: nothing given yet) if needed.
    mutating func share(of source: Share.Source, with member: String) -> Int {
        familyBook.share(
            of: source, purchaser: FamilyBook.purchaser(of: source, subscriptions: subscriptionBook, ledger: ledger),
            with: member)
    }

    /// A new purchase: if the product is shareable and the purchaser's main switch is on, the family gets it after the
    /// family delay.
    mutating func startSharingNewPurchase(chain key: ChainID, product: Product) throws(StoreError) {
        let purchaser = subscriptionBook.chains[key.index].customer
        let shared = familyBook.sharesNewPurchase(of: product, by: purchaser)
        subscriptionBook.setSharing(shared, of: key)
        if shared { try scheduleShares(of: .subscription(chain: key), purchaser: purchaser) }
    }

    /// Starts the family delay for every other person in the purchaser's family (rule family-delay).
    mutating func scheduleShares(of source: Share.Source, purchaser: String) throws(StoreError) {
        let grantAt = now.adding(app.familyDelay)
        for member in familyBook.othersInFamily(of: purchaser) {
            let id = familyBook.share(of: source, purchaser: purchaser, with: member)
            try transition(share: id, .delayStarted(at: grantAt))
        }
    }

    /// Offers a shared purchase to `people` who do not have it: at the same instant as a pending grant to others,
    /// or at once (joining, opting in: no delay), or held until the purchaser recovers from billing retry.
    mutating func offerShare(of source: Share.Source, to people: [String]) throws(StoreError) {
        let purchaser = FamilyBook.purchaser(of: source, subscriptions: subscriptionBook, ledger: ledger)
        let pendingAt = familyBook.pendingGrantInstant(of: source)
        for member in people where member != purchaser {
            let id = share(of: source, with: member)
            let start = familyBook.shareStart(
                of: source, subscriptions: subscriptionBook, ledger: ledger, catalog: catalog)
            try transition(share: id, .offered(joiningPendingAt: pendingAt, start: start))
        }
    }

    /// The family delay is over for one share.
    mutating func deliverPendingShare(_ id: Int) throws(StoreError) {
        try transition(
            share: id,
            familyBook.delayEndedInput(ofShare: id, subscriptions: subscriptionBook, ledger: ledger, catalog: catalog))
    }

    /// Ends a share (``ShareInput/ended(reason:)``): inside the delay the member never receives anything;
    /// a member who has it gets `REVOKE` with `reason` (0, or the purchaser's on a refund).
    mutating func endShare(_ id: Int, reason: Int32) throws(StoreError) {
        try transition(share: id, .ended(reason: reason))
    }

    /// A resubscription is a new purchase: members wait for the delay again, so the old grants stop mirroring.
    mutating func suspendShares(of key: ChainID) throws(StoreError) {
        for id in familyBook.sharesOf(.subscription(chain: key)) { try transition(share: id, .purchaserResubscribed) }
    }

    /// Runs one transition of a share: ``FamilyBook/apply(_:toShare:)`` moves it by ``ShareTransition``, and each
    /// effect goes to the part that carries it out. `purchaser`: the purchaser's subscription as a notification about
    /// it reports it, during its transition.
    mutating func transition(share id: Int, _ input: ShareInput, purchaser: PurchaserView? = nil) throws(StoreError) {
        for effect in familyBook.apply(input, toShare: id) {
            switch effect {
            case .scheduleGrant(let at):
                do throws(SchedulingError) {
                    let event = try scheduler.schedule(
                        .familyGrant(share: id), at: at, priority: StoreEventPriority.storeEvent,
                        group: eventGroup(ofCustomerAt: directory.positions[familyBook.shares[id].purchaser]))
                    familyBook.noteGrantEvent(event, of: id)
                } catch { throw .scheduling(error) }
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
    /// (nil: the chain's own).
    private mutating func sendAboutChain(
        _ key: ChainID, _ type: NotificationType, _ subtype: NotificationSubtype?, state: SubscriptionState? = nil
    ) {
        let chain = subscriptionBook.chains[key.index]
        if let state {
            send(
                type, subtype, to: chain.customer, transaction: ledger.transactions[chain.currentTransactionIndex],
                renewal: renewalSnapshot(of: chain, state: state), status: state.phase)
        } else {
            send(
                type, subtype, to: chain.customer, transaction: ledger.transactions[chain.currentTransactionIndex],
                renewal: renewalSnapshot(of: chain), status: chain.state.phase)
        }
    }

    /// Gives the member their own transaction for the shared purchase and notifies them (``ShareEffect/grant(restored:)``).
    mutating func grant(share id: Int, restored: Bool, purchaser: PurchaserView?) {
        let member = familyBook.shares[id].member
        switch familyBook.shares[id].source {
        case .subscription(let key):
            grantSubscriptionShare(
                id, purchaser: purchaser ?? PurchaserView(key, in: subscriptionBook, ledger: ledger))
        case .nonConsumable(let index):
            let record = TransactionLedger.memberNonConsumableTransaction(
                like: ledger.transactions[index], member: member, transactionId: nextTransactionId(for: member),
                at: now)
            familyBook.noteMemberTransaction(ledger.nextIndex, of: id)
            appendTransaction(record)
            // ONE_TIME_CHARGE: also sent when a customer receives a non-consumable through Family Sharing (§1.1, S-NT).
            send(
                .oneTimeCharge, nil, to: member, transaction: ledger.transactions[ledger.nextIndex - 1], renewal: nil,
                status: nil, restored: restored)
        }
    }

    /// Gives the member their own chain (or reuses the one they had) and transaction for a shared subscription, and
    /// sends `SUBSCRIBED` (`INITIAL_BUY`, or `RESUBSCRIBE` to a member who had the share before, §1.1), describing
    /// the purchaser's current transaction and state (`purchaser`).
    mutating func grantSubscriptionShare(_ id: Int, purchaser: PurchaserView) {
        guard case .subscription(let key) = familyBook.shares[id].source else { return }
        let member = familyBook.shares[id].member
        let existing = familyBook.shares[id].memberChain
        let dates = familyBook.memberGrantDates(
            ofShare: id, purchaser: purchaser, subscriptions: subscriptionBook, at: now)
        let memberKey =
            existing
            ?? insertChain(
                FamilyBook.memberChain(
                    of: key, purchaser: purchaser, member: member,
                    originalTransactionId: nextTransactionId(for: member),
                    originalPurchaseDate: dates.originalPurchaseDate,
                    purchaserPosition: directory.positions[purchaser.customer] ?? -1))
        subscriptionBook.mirror(purchaser.state, on: memberKey)
        appendMemberTransaction(memberKey, like: purchaser.record, purchaseDate: dates.purchaseDate, reason: .purchase)
        familyBook.grant(id, memberChain: memberKey)
        sendAboutChain(memberKey, .subscribed, existing == nil ? .initialBuy : .resubscribe)
    }

    /// The member's transaction (``TransactionLedger/memberSubscriptionTransaction(like:member:transactionIdentifier:originalTransactionId:webOrderLineItem:purchaseDate:originalPurchaseDate:reason:currency:at:)``),
    /// made the current one of the member's chain. Rule ids-per-customer: the member holds their transaction; a
    /// first one's id is the chain's `originalTransactionId`.
    mutating func appendMemberTransaction(
        _ memberKey: ChainID, like purchaserRecord: TransactionRecord, purchaseDate: Instant, reason: ChargeReason,
        currency: String? = nil
    ) {
        let chain = subscriptionBook.chains[memberKey.index]
        let owner = position(of: chain) ?? register(chain.customer)
        let transactionIdentifier: StoreIdentifier =
            chain.currentTransactionIndex < 0
            ? .text(chain.originalTransactionId) : nextTransactionIdentifier(forCustomerAt: owner)
        let record = TransactionLedger.memberSubscriptionTransaction(
            like: purchaserRecord, member: chain.customer, transactionIdentifier: transactionIdentifier,
            originalTransactionId: chain.originalTransactionId,
            webOrderLineItem: nextWebOrderLineItemIdentifier(forCustomerAt: owner), purchaseDate: purchaseDate,
            originalPurchaseDate: chain.originalPurchaseDate, reason: reason, currency: currency, at: now)
        subscriptionBook.noteTransaction(at: ledger.nextIndex, of: memberKey)
        appendTransaction(record)
    }

    /// Renewals and recoveries reach members at the same instant, with no delay (§4.4, §4.5): each of the purchaser's
    /// fan-out targets (``FamilyBook/fanOutTargets(of:)``) is charged. Each member's transaction is made from the
    /// purchaser's record as built, before the purchaser's storefront price and account fields are set: the product's
    /// own price (or the offer's) in the product's `currency`.
    mutating func chargeMembers(sharing key: ChainID, like record: TransactionRecord, currency: String) {
        for memberKey in familyBook.fanOutTargets(of: key) {
            appendMemberTransaction(
                memberKey, like: record, purchaseDate: record.purchaseDate, reason: record.reason, currency: currency)
        }
    }

    /// Fan-out: after the purchaser's notification, each member with the share gets theirs, in family order
    /// (rule member-notifications; ordering A-19); a share held during billing retry is granted at the recovery
    /// (rule share-held-during-billing-retry). Each share moves through ``ShareTransition``; `purchaser` holds
    /// the purchaser's current transaction and the state the notification reports.
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

    /// ``ShareEffect/revokeMember(reason:)``: if the member still has the shared access
    /// (``FamilyBook/accessToRevoke(ofShare:subscriptions:ledger:)``), the ledger revokes their transaction
    /// (``TransactionLedger/revokeFamilyShared(_:reason:at:)``) and they get REVOKE, status 5.
    mutating func revokeMember(share id: Int, reason: Int32) {
        switch familyBook.accessToRevoke(ofShare: id, subscriptions: subscriptionBook, ledger: ledger) {
        case nil:
            return
        case .chain(let memberKey, let index):
            ledger.revokeFamilyShared(index, reason: reason, at: now)
            // Rule renewal-info-agrees-with-status: a REVOKE during grace or retry ends them for this member.
            subscriptionBook.revokeMember(memberKey, at: now)
            sendAboutChain(memberKey, .revoke, nil)
        case .transaction(let index):
            ledger.revokeFamilyShared(index, reason: reason, at: now)
            send(
                .revoke, nil, to: ledger.transactions[index].customer, transaction: ledger.transactions[index],
                renewal: nil, status: nil)
        }
    }
}
