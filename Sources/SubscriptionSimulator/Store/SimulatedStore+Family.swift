/// A purchase shared with one family member.
struct Share: Hashable, Sendable {
    enum Source: Hashable, Sendable {
        /// A purchaser's subscription chain.
        case subscription(chain: ChainID)
        /// A purchaser's non-consumable transaction (by index in `transactions`).
        case nonConsumable(transactionIndex: Int)
    }

    enum Phase: Hashable, Sendable {
        /// Waiting for the family delay; the member has nothing yet.
        case pending(EventID, at: Instant)
        /// Started while the purchaser's subscription was in billing retry; the member has nothing yet and receives it
        /// at the recovery (rule share-held-during-billing-retry, ``FamilyRules/shareStart(purchaserPhase:)``).
        case held
        /// The member has (or had, if the purchaser's subscription since expired) their own transaction.
        case granted
        /// Revoked, or cancelled before it reached the member.
        case ended
    }

    var source: Source
    var purchaser: String
    var member: String
    var phase: Phase
    /// The member's own chain, once granted (subscriptions).
    var memberChain: ChainID?
    /// The member's own transaction, once granted (non-consumables).
    var memberTransactionIndex: Int?
}

/// Family Sharing: family groups, sharing switches, the family delay, fan-out of notifications to members, REVOKE.
/// Facts: reference §1.3, §4 and §7; rules by name in ``FamilyRules``.
extension SimulatedStore {
    // MARK: - Family groups

    /// Creates a family with `organizer` and, in join order, `members` (joining carries no delay, §4.4).
    public mutating func createFamily(organizer: String, members: [String] = []) throws(StoreError) {
        addCustomer(organizer)
        if family(of: organizer) != nil { throw .family(.alreadyInAFamily(customer: organizer)) }
        families.append(FamilyGroup(organizer: organizer))
        familyIndexByCustomer[organizer] = families.count - 1
        for member in members { try joinFamily(member, organizer: organizer) }
    }

    /// `customer` joins the family `organizer` leads (or the only family, when `organizer` is nil). Members get
    /// access to eligible shared purchases as soon as they are in the group: no family delay (§4.2, §4.4).
    public mutating func joinFamily(_ customer: String, organizer: String? = nil) throws(StoreError) {
        addCustomer(customer)
        guard let index = organizer.flatMap({ family(of: $0) }) ?? (families.count == 1 ? 0 : nil) else {
            throw .noFamily(organizer: organizer)
        }
        if family(of: customer) != nil { throw .family(.alreadyInAFamily(customer: customer)) }
        guard families[index].count < FamilyRules.maximumFamilySize else {
            throw .family(.familyFull(organizer: families[index].organizer))
        }
        families[index].add(customer)
        familyIndexByCustomer[customer] = index
        // Purchases already shared in the family reach the newcomer now; the newcomer's shared purchases reach the
        // family now.
        for source in sharedSources(inFamily: index) {
            try offerShare(of: source, to: families[index].everyone)
        }
        refreshEntitlements()
    }

    /// `customer` leaves their family. Members lose what was shared with them through `customer`, and `customer`
    /// loses what others shared (REVOKE, §4.6). The organizer leaving disbands the family: everyone loses every share.
    public mutating func leaveFamily(_ customer: String) throws(StoreError) {
        guard let index = family(of: customer) else { throw .family(.notInAFamily(customer: customer)) }
        let group = families[index]
        if group.organizer == customer {
            for id in shares.indices where group.contains(shares[id].member) && group.contains(shares[id].purchaser) {
                endShare(id, reason: 0)
            }
            families.remove(at: index)
            // Later families moved down one place.
            familyIndexByCustomer = [:]
            for (position, family) in families.enumerated() {
                for person in family.everyone { familyIndexByCustomer[person] = position }
            }
        } else {
            for id in shares.indices where shares[id].member == customer && group.contains(shares[id].purchaser) {
                endShare(id, reason: 0)
            }
            for id in orderedShares(where: { $0.purchaser == customer && group.contains($0.member) }) {
                endShare(id, reason: 0)
            }
            families[index].remove(customer)
            familyIndexByCustomer[customer] = nil
        }
        refreshEntitlements()
    }

    // MARK: - Sharing switches

    /// The purchaser's "Share With Family" main switch (Apple Support: "Share New Subscriptions"). On by default; it
    /// governs new purchases only and never unshares an existing one (reference §4.3, Appendix B-14).
    public mutating func setShareWithFamily(_ enabled: Bool, for customer: String) throws(StoreError) {
        addCustomer(customer)
        guard (shareNewPurchases[customer] ?? true) != enabled else {
            throw .family(.mainSwitchAlreadySet(customer: customer, enabled: enabled))
        }
        shareNewPurchases[customer] = enabled
    }

    /// The purchaser turns sharing off for one subscription or non-consumable: members lose it (REVOKE, reason 0).
    /// Inside the family delay, members never receive it (reference §4.4, Appendix A-6).
    public mutating func stopSharing(_ productId: String, by customer: String) throws(StoreError) {
        let product = try requireProduct(productId)
        switch product.type {
        case .autoRenewable:
            let key = try requireChain(productId, customer)
            guard chains[key.index].sharingOn else {
                throw .family(.sharingAlreadyOff(customer: customer, productId: productId))
            }
            chains[key.index].sharingOn = false
            for id in orderedShares(where: { $0.source == .subscription(chain: key) }) { endShare(id, reason: 0) }
        case .nonConsumable:
            guard let index = unrefundedOneTimePurchase(productId, of: customer) else {
                throw .family(.nothingToShare(customer: customer, productId: productId))
            }
            guard product.familyShareable, !nonConsumableSharingOff.contains(index) else {
                throw .family(.sharingAlreadyOff(customer: customer, productId: productId))
            }
            nonConsumableSharingOff.insert(index)
            for id in orderedShares(where: { $0.source == .nonConsumable(transactionIndex: index) }) {
                endShare(id, reason: 0)
            }
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
            guard !chains[key.index].sharingOn else {
                throw .family(.sharingAlreadyOn(customer: customer, productId: productId))
            }
            chains[key.index].sharingOn = true
            source = .subscription(chain: key)
        case .nonConsumable, .consumable, .nonRenewing:
            guard let index = unrefundedOneTimePurchase(productId, of: customer) else {
                throw .family(.nothingToShare(customer: customer, productId: productId))
            }
            guard nonConsumableSharingOff.contains(index) else {
                throw .family(.sharingAlreadyOn(customer: customer, productId: productId))
            }
            nonConsumableSharingOff.remove(index)
            source = .nonConsumable(transactionIndex: index)
        }
        if let family = family(of: customer) { try offerShare(of: source, to: families[family].everyone) }
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
        if let family = family(of: customer) {
            for source in sharedSources(inFamily: family) {
                guard case .nonConsumable = source, sharePurchaser(of: source) != customer,
                    existingShare(of: source, with: customer).map({ shares[$0].phase != .granted }) ?? true
                else { continue }
                let id = share(of: source, with: customer)
                deliverShare(id, restored: true)
            }
        }
        let restored = transactions.filter {
            $0.customer == customer && $0.revocation == nil && $0.productType == .nonConsumable
        }
        restores.append(
            RestoreRecord(position: notifications.count, instant: now, customer: customer, transactions: restored))
        refreshEntitlements()
    }

    // MARK: - Shares

    func family(of customer: String) -> Int? {
        familyIndexByCustomer[customer]
    }

    /// The customer's latest own purchase of a one-time product that is not refunded (an index in `transactions`).
    func unrefundedOneTimePurchase(_ productId: String, of customer: String) -> Int? {
        guard let position = customerPositions[customer] else { return nil }
        return customerRecords[position].oneTimePurchases.last {
            transactions[$0].productId == productId && transactions[$0].ownership == .purchased
                && transactions[$0].revocation == nil
        }
    }

    func sharePurchaser(of source: Share.Source) -> String {
        switch source {
        case .subscription(let key): return chains[key.index].customer
        case .nonConsumable(let index): return transactions[index].customer
        }
    }

    /// What a share of `source` starting now gives the member: nothing unless sharing is switched on and the product
    /// is shareable; for a subscription, then, whatever the purchaser's phase allows (``FamilyRules/shareStart(purchaserPhase:)``);
    /// a non-consumable until it is refunded.
    func shareStart(of source: Share.Source) -> FamilyRules.ShareStart {
        switch source {
        case .subscription(let key):
            let chain = chains[key.index]
            guard chain.sharingOn, catalog[chain.state.productId]?.familyShareable == true else { return .nothing }
            return FamilyRules.shareStart(purchaserPhase: chain.state.phase)
        case .nonConsumable(let index):
            let record = transactions[index]
            let shared =
                record.revocation == nil && !nonConsumableSharingOff.contains(index)
                && catalog[record.productId]?.familyShareable == true
            return shared ? .grantNow : .nothing
        }
    }

    /// Purchases of the family's people that are shared now or held (rule share-held-during-billing-retry), in
    /// purchase order (by first transaction).
    func sharedSources(inFamily index: Int) -> [Share.Source] {
        var sources: [(Int, Share.Source)] = []
        for person in families[index].everyone {
            guard let position = customerPositions[person] else { continue }
            let record = customerRecords[position]
            for key in record.chains where chains[key.index].ownership == .purchased {
                if shareStart(of: .subscription(chain: key)) != .nothing {
                    sources.append((chains[key.index].firstTransactionIndex, .subscription(chain: key)))
                }
            }
            for transaction in record.oneTimePurchases
            where transactions[transaction].productType == .nonConsumable
                && transactions[transaction].ownership == .purchased
                && shareStart(of: .nonConsumable(transactionIndex: transaction)) != .nothing
            {
                sources.append((transaction, .nonConsumable(transactionIndex: transaction)))
            }
        }
        return sources.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Share ids matching `predicate`, members in family order.
    func orderedShares(where predicate: (Share) -> Bool) -> [Int] {
        inFamilyOrder(shares.indices.filter { predicate(shares[$0]) })
    }

    /// Shares of one purchase, members in family order.
    func sharesOf(_ source: Share.Source) -> [Int] {
        inFamilyOrder(shareIdsBySource[source] ?? [])
    }

    /// Share ids sorted by their member's place in the member's family (organizer first, then join order; people
    /// no longer in a family last), then by id.
    func inFamilyOrder(_ ids: [Int]) -> [Int] {
        if ids.count < 2 { return ids }
        var ranked: [(rank: Int, id: Int)] = []
        ranked.reserveCapacity(ids.count)
        for id in ids {
            let member = shares[id].member
            let rank = family(of: member).flatMap { families[$0].position(of: member) } ?? Int.max
            ranked.append((rank, id))
        }
        ranked.sort { ($0.rank, $0.id) < ($1.rank, $1.id) }
        return ranked.map(\.id)
    }

    func existingShare(of source: Share.Source, with member: String) -> Int? {
        shareIdsBySource[source]?.first { shares[$0].member == member }
    }

    /// The share of `source` with `member`, created if needed.
    mutating func share(of source: Share.Source, with member: String) -> Int {
        if let id = existingShare(of: source, with: member) { return id }
        shares.append(Share(source: source, purchaser: sharePurchaser(of: source), member: member, phase: .ended))
        shareIdsBySource[source, default: []].append(shares.count - 1)
        return shares.count - 1
    }

    /// A new purchase: if the product is shareable and the purchaser's main switch is on, the family gets it after the
    /// family delay.
    mutating func startSharingNewPurchase(chain key: ChainID, product: Product) throws(StoreError) {
        let purchaser = chains[key.index].customer
        let shared = product.familyShareable && (shareNewPurchases[purchaser] ?? true)
        chains[key.index].sharingOn = shared
        if shared { try scheduleShares(of: .subscription(chain: key), purchaser: purchaser) }
    }

    /// Schedules the family delay for every other person in the purchaser's family (rule family-delay).
    mutating func scheduleShares(of source: Share.Source, purchaser: String) throws(StoreError) {
        guard let family = family(of: purchaser) else { return }
        let grantAt = now.adding(app.familyDelay)
        for member in families[family].everyone where member != purchaser {
            let id = share(of: source, with: member)
            do throws(SchedulingError) {
                let event = try scheduler.schedule(
                    .familyGrant(share: id), at: grantAt, priority: StoreEventPriority.storeEvent)
                shares[id].phase = .pending(event, at: grantAt)
            } catch { throw .scheduling(error) }
        }
    }

    /// Offers a shared purchase to `people` who do not have it: at the same instant as a pending grant to others,
    /// or at once (joining, opting in: no delay), or held until the purchaser recovers from billing retry.
    mutating func offerShare(of source: Share.Source, to people: [String]) throws(StoreError) {
        let purchaser = sharePurchaser(of: source)
        var pendingAt: Instant?
        for id in shareIdsBySource[source] ?? [] {
            if case .pending(_, let at) = shares[id].phase {
                pendingAt = at
                break
            }
        }
        for member in people where member != purchaser {
            let id = share(of: source, with: member)
            switch shares[id].phase {
            case .granted, .pending, .held: continue
            case .ended: break
            }
            if let pendingAt {
                do throws(SchedulingError) {
                    let event = try scheduler.schedule(
                        .familyGrant(share: id), at: pendingAt, priority: StoreEventPriority.storeEvent)
                    shares[id].phase = .pending(event, at: pendingAt)
                } catch { throw .scheduling(error) }
            } else {
                startShare(id)
            }
        }
    }

    /// A share starts now: granted, held, or nothing (``shareStart(of:)``).
    mutating func startShare(_ id: Int) {
        switch shareStart(of: shares[id].source) {
        case .grantNow: deliverShare(id, restored: false)
        case .holdUntilRecovery: shares[id].phase = .held
        case .nothing: shares[id].phase = .ended
        }
    }

    /// The family delay is over for one share.
    mutating func deliverPendingShare(_ id: Int) {
        guard case .pending = shares[id].phase else { return }
        let sameFamily = family(of: shares[id].member).map { families[$0].contains(shares[id].purchaser) } ?? false
        guard sameFamily else {
            shares[id].phase = .ended
            return
        }
        startShare(id)
    }

    /// Gives the member their own transaction for the shared purchase and notifies them.
    mutating func deliverShare(_ id: Int, restored: Bool) {
        let member = shares[id].member
        switch shares[id].source {
        case .subscription(let key):
            let source = chains[key.index]
            grantSubscriptionShare(
                id, purchaserRecord: transactions[source.currentTransactionIndex], state: source.state)
        case .nonConsumable(let index):
            let purchaserRecord = transactions[index]
            let memberId = ids.nextTransactionId()
            var record = purchaserRecord
            record.transactionId = memberId
            record.originalTransactionId = memberId
            record.customer = member
            record.ownership = .familyShared
            record.purchaseDate = now
            record.originalPurchaseDate = now
            record.lastModified = now
            shares[id].memberTransactionIndex = transactions.endIndex
            shares[id].phase = .granted
            appendTransaction(record)
            // ONE_TIME_CHARGE: also sent when a customer receives a non-consumable through Family Sharing (§1.1, S-NT).
            send(
                .oneTimeCharge, nil, to: member, transaction: transactions[transactions.endIndex - 1], renewal: nil,
                status: nil, restored: restored)
        }
    }

    /// Gives the member their own chain (or reuses the one they had) and transaction for a shared subscription, and
    /// sends `SUBSCRIBED` (`INITIAL_BUY`, or `RESUBSCRIBE` to a member who had the share before, §1.1). The purchaser's
    /// current transaction and state are passed in: during a transition the purchaser's chain is not in `chains`.
    mutating func grantSubscriptionShare(_ id: Int, purchaserRecord: TransactionRecord, state: SubscriptionState) {
        guard case .subscription(let key) = shares[id].source else { return }
        let member = shares[id].member
        let isFirst = shares[id].memberChain == nil
        // A-3 and rule member-grant-during-grace: the period the member's first transaction describes.
        let dates = FamilyRules.memberGrantDates(
            at: now, purchaserPurchaseDate: purchaserRecord.purchaseDate,
            purchaserExpiresDate: purchaserRecord.expiresDate ?? now,
            memberOriginalPurchaseDate: shares[id].memberChain.map { chains[$0.index].originalPurchaseDate })
        let memberKey =
            shares[id].memberChain
            ?? insertChain(
                SubscriptionChain(
                    originalTransactionId: ids.nextTransactionId(), customer: member, group: chains[key.index].group,
                    groupIdentifier: chains[key.index].groupIdentifier, ownership: .familyShared,
                    sharedFrom: key, sharingOn: false, state: state, originalPurchaseDate: dates.originalPurchaseDate,
                    recentSubscriptionStartDate: dates.originalPurchaseDate, currentTransactionIndex: -1))
        shares[id].memberChain = memberKey
        chains[memberKey.index].state = state
        appendMemberTransaction(memberKey, like: purchaserRecord, purchaseDate: dates.purchaseDate, reason: .purchase)
        shares[id].phase = .granted
        let chain = chains[memberKey.index]
        send(
            .subscribed, isFirst ? .initialBuy : .resubscribe, to: member,
            transaction: transactions[chain.currentTransactionIndex],
            renewal: renewalSnapshot(of: chain, state: chain.state), status: chain.state.phase)
    }

    /// a member's transaction has its own ids, `FAMILY_SHARED`, the purchaser's product, price, currency
    /// and `expiresDate`; no offer fields.
    mutating func appendMemberTransaction(
        _ memberKey: ChainID, like purchaserRecord: TransactionRecord, purchaseDate: Instant, reason: ChargeReason
    ) {
        let chain = chains[memberKey.index]
        let isFirst = chain.currentTransactionIndex < 0
        var record = purchaserRecord
        record.transactionIdentifier = isFirst ? .text(chain.originalTransactionId) : ids.nextTransactionIdentifier()
        record.originalTransactionId = chain.originalTransactionId
        record.webOrderLineItem = ids.nextWebOrderLineItemIdentifier()
        record.customer = chain.customer
        record.ownership = .familyShared
        record.purchaseDate = purchaseDate
        record.originalPurchaseDate = chain.originalPurchaseDate
        record.reason = reason
        record.offer = nil
        record.revocation = nil
        record.lastModified = now
        if isFirst { chains[memberKey.index].firstTransactionIndex = transactions.endIndex }
        chains[memberKey.index].currentTransactionIndex = transactions.endIndex
        appendTransaction(record)
    }

    /// Renewals and recoveries reach members at the same instant, with no delay (§4.4, §4.5).
    mutating func chargeMembers(sharing key: ChainID, like record: TransactionRecord) {
        if shares.isEmpty { return }
        for id in sharesOf(.subscription(chain: key)) where shares[id].phase == .granted {
            guard let memberKey = shares[id].memberChain else { continue }
            appendMemberTransaction(memberKey, like: record, purchaseDate: record.purchaseDate, reason: record.reason)
        }
    }

    /// Fan-out: after the purchaser's notification, each member with the share gets theirs, in family order
    /// (rule member-notifications; ordering A-19). A share held during billing retry is granted when the
    /// purchaser's subscription gives access again (the recovery) and ends unseen when it ends (rule
    /// share-held-during-billing-retry); `purchaserRecord` is the purchaser's current transaction.
    mutating func notifyMembers(
        sharing key: ChainID, _ type: NotificationType, _ subtype: NotificationSubtype?, snapshot: SubscriptionState,
        purchaserRecord: TransactionRecord, refundReason: Int32
    ) {
        guard !shares.isEmpty else { return }
        for id in sharesOf(.subscription(chain: key)) {
            switch shares[id].phase {
            case .granted: break
            case .pending, .ended: continue
            case .held:
                switch FamilyRules.shareStart(purchaserPhase: snapshot.phase) {
                case .grantNow: grantSubscriptionShare(id, purchaserRecord: purchaserRecord, state: snapshot)
                case .holdUntilRecovery: break
                case .nothing: shares[id].phase = .ended
                }
                continue
            }
            guard let memberType = FamilyRules.memberNotification(for: type), let memberKey = shares[id].memberChain
            else { continue }
            if memberType == .revoke {
                endShare(id, reason: refundReason)
                continue
            }
            chains[memberKey.index].state = snapshot
            let chain = chains[memberKey.index]
            send(
                memberType, subtype, to: chain.customer, transaction: transactions[chain.currentTransactionIndex],
                renewal: renewalSnapshot(of: chain, state: snapshot), status: snapshot.phase)
        }
    }

    /// A resubscription is a new purchase: members wait for the delay again, so the old grants stop mirroring.
    mutating func suspendShares(of key: ChainID) {
        for id in sharesOf(.subscription(chain: key)) where shares[id].phase == .granted {
            shares[id].phase = .ended
        }
    }

    /// Ends a share. Inside the delay the member never receives anything. Otherwise, if the member still has
    /// the shared access, they get REVOKE: revocationDate now, `revocationType` FAMILY_REVOKE, `revocationReason`
    /// 0 or the purchaser's on a refund, status 5, no `revocationPercentage` (§4.6, A-11; S-NT, S-RR, S-RT).
    mutating func endShare(_ id: Int, reason: Int32) {
        switch shares[id].phase {
        case .ended:
            return
        case .held:
            // Nothing was given, so nothing is revoked (rule share-held-during-billing-retry).
            shares[id].phase = .ended
            return
        case .pending(let event, _):
            scheduler.cancel(event)
            shares[id].phase = .ended
            return
        case .granted:
            shares[id].phase = .ended
        }
        let revocation = Revocation(date: now, reason: reason, kind: .familyRevoke)
        switch shares[id].source {
        case .subscription:
            guard let memberKey = shares[id].memberChain else { return }
            let chain = chains[memberKey.index]
            switch chain.state.phase {
            case .expired, .revoked: return
            case .active, .gracePeriod, .billingRetry: break
            }
            transactions[chain.currentTransactionIndex].revocation = revocation
            markModified(chain.currentTransactionIndex)
            // Rule renewal-info-agrees-with-status: a REVOKE during grace or retry ends them for this member.
            chains[memberKey.index].state = SubscriptionLifecycle.renewalInfoAtEnd(of: chain.state, at: now)
            chains[memberKey.index].state.phase = .revoked
            chains[memberKey.index].state.autoRenew = false
            let revoked = chains[memberKey.index]
            send(
                .revoke, nil, to: revoked.customer, transaction: transactions[revoked.currentTransactionIndex],
                renewal: renewalSnapshot(of: revoked, state: revoked.state), status: .revoked)
        case .nonConsumable:
            guard let index = shares[id].memberTransactionIndex, transactions[index].revocation == nil else { return }
            transactions[index].revocation = revocation
            markModified(index)
            send(
                .revoke, nil, to: transactions[index].customer, transaction: transactions[index], renewal: nil,
                status: nil)
        }
    }
}
