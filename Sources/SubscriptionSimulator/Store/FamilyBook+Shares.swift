/// Who shares what with whom: the share rules that read the purchases the family book's shares are made of (the
/// purchaser's chain in the ``SubscriptionBook``, a non-consumable in the ``TransactionLedger``). The facade
/// (`Store/SimulatedStore+Family.swift`) passes the parts in and carries out what the book decides; the book's own
/// changes are in `Store/FamilyBook.swift`. Facts: reference §4; rules by name in ``FamilyRules``.
extension FamilyBook {
    /// The purchaser of `source`: the chain's customer, or the non-consumable transaction's.
    static func purchaser(
        of source: Share.Source, subscriptions: SubscriptionBook, ledger: TransactionLedger
    ) -> String {
        switch source {
        case .subscription(let key): return subscriptions.chains[key.index].customer
        case .nonConsumable(let index): return ledger.transactions[index].customer
        }
    }

    /// What a share of `source` starting now gives the member: nothing unless sharing is switched on and the product
    /// is shareable; for a subscription, then, whatever the purchaser's phase allows
    /// (``FamilyRules/shareStart(purchaserPhase:)``); a non-consumable until it is refunded.
    func shareStart(
        of source: Share.Source, subscriptions: SubscriptionBook, ledger: TransactionLedger,
        catalog: Catalog
    ) -> FamilyRules.ShareStart {
        switch source {
        case .subscription(let key):
            let chain = subscriptions.chains[key.index]
            guard chain.sharingOn, catalog[chain.state.productId]?.familyShareable == true else { return .nothing }
            return FamilyRules.shareStart(purchaserPhase: chain.state.phase)
        case .nonConsumable(let index):
            let record = ledger.transactions[index]
            let shared =
                record.revocation == nil && !nonConsumableSharingOff.contains(index)
                && catalog[record.productId]?.familyShareable == true
            return shared ? .grantNow : .nothing
        }
    }

    /// Purchases of the family's people that are shared now or held (rule share-held-during-billing-retry), in
    /// purchase order (by first transaction).
    func sharedSources(
        inFamily index: Int, directory: CustomerDirectory, subscriptions: SubscriptionBook,
        ledger: TransactionLedger, catalog: Catalog
    ) -> [Share.Source] {
        var sources: [(Int, Share.Source)] = []
        for person in families[index].everyone {
            guard let position = directory.positions[person] else { continue }
            let record = directory.records[position]
            for key in record.chains where subscriptions.chains[key.index].ownership == .purchased {
                let source = Share.Source.subscription(chain: key)
                if shareStart(of: source, subscriptions: subscriptions, ledger: ledger, catalog: catalog) != .nothing {
                    sources.append((subscriptions.chains[key.index].firstTransactionIndex, source))
                }
            }
            for transaction in record.oneTimePurchases
            where ledger.transactions[transaction].productType == .nonConsumable
                && ledger.transactions[transaction].ownership == .purchased
                && shareStart(
                    of: .nonConsumable(transactionIndex: transaction), subscriptions: subscriptions, ledger: ledger,
                    catalog: catalog) != .nothing
            {
                sources.append((transaction, .nonConsumable(transactionIndex: transaction)))
            }
        }
        return sources.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The people a new purchase by `purchaser` is shared with after the family delay (rule family-delay): everyone
    /// else in the purchaser's family, in family order; nobody when the purchaser is in no family.
    func othersInFamily(of purchaser: String) -> [String] {
        guard let family = family(of: purchaser) else { return [] }
        return families[family].everyone.filter { $0 != purchaser }
    }

    /// The shares of a non-consumable the member restores: every non-consumable shared in `member`'s family that
    /// someone else bought, in purchase order. A family member receives a non-consumable that became shareable after
    /// it was bought only through restore (reference §4.5, §7.2; S-FSA); **[assumed]** (Appendix B-11): that
    /// member's transaction and its ONE_TIME_CHARGE are created at the restore.
    func restorableSources(
        for member: String, directory: CustomerDirectory, subscriptions: SubscriptionBook,
        ledger: TransactionLedger, catalog: Catalog
    ) -> [Share.Source] {
        guard let family = family(of: member) else { return [] }
        return sharedSources(
            inFamily: family, directory: directory, subscriptions: subscriptions, ledger: ledger, catalog: catalog
        ).filter { source in
            guard case .nonConsumable = source else { return false }
            return Self.purchaser(of: source, subscriptions: subscriptions, ledger: ledger) != member
        }
    }

    /// The shares ``restorableSources(for:directory:subscriptions:ledger:catalog:)`` names for `member`, created
    /// (ended: nothing given yet) if needed, each to move by ``ShareInput/restored``.
    mutating func restoredShares(
        for member: String, directory: CustomerDirectory, subscriptions: SubscriptionBook,
        ledger: TransactionLedger, catalog: Catalog
    ) -> [ShareMove] {
        restorableSources(
            for: member, directory: directory, subscriptions: subscriptions, ledger: ledger, catalog: catalog
        ).map {
            let purchaser = Self.purchaser(of: $0, subscriptions: subscriptions, ledger: ledger)
            return (share(of: $0, purchaser: purchaser, with: member), .restored)
        }
    }

    /// Rule family-delay: the shares of a new purchase `source` by `purchaser` with everyone else in the
    /// purchaser's family (``othersInFamily(of:)``), created if needed, each to move by
    /// ``ShareInput/delayStarted(at:)`` with the instant the delay ends, `grantAt`.
    mutating func delayedShares(of source: Share.Source, purchaser: String, grantAt: Instant) -> [ShareMove] {
        othersInFamily(of: purchaser).map {
            (share(of: source, purchaser: purchaser, with: $0), .delayStarted(at: grantAt))
        }
    }

    /// A shared purchase offered to `people` (but its purchaser), each share created if needed, with the input that
    /// moves it: ``ShareInput/offered(joiningPendingAt:start:)`` at the instant of a grant pending to others, or at
    /// once (joining, opting in: no delay, §4.4), or held until the purchaser recovers from billing retry
    /// (``shareStart(of:subscriptions:ledger:catalog:)``).
    mutating func offers(
        of source: Share.Source, to people: [String], subscriptions: SubscriptionBook, ledger: TransactionLedger,
        catalog: Catalog
    ) -> [ShareMove] {
        let purchaser = Self.purchaser(of: source, subscriptions: subscriptions, ledger: ledger)
        let input = ShareInput.offered(
            joiningPendingAt: pendingGrantInstant(of: source),
            start: shareStart(of: source, subscriptions: subscriptions, ledger: ledger, catalog: catalog))
        return people.filter { $0 != purchaser }.map { (share(of: source, purchaser: purchaser, with: $0), input) }
    }

    /// ``offers(of:to:subscriptions:ledger:catalog:)`` to everyone in `customer`'s family; none outside one.
    mutating func offers(
        of source: Share.Source, toFamilyOf customer: String, subscriptions: SubscriptionBook,
        ledger: TransactionLedger, catalog: Catalog
    ) -> [ShareMove] {
        guard let family = family(of: customer) else { return [] }
        return offers(
            of: source, to: families[family].everyone, subscriptions: subscriptions, ledger: ledger, catalog: catalog)
    }

    /// A newcomer to family `index`: the purchases already shared in the family reach them now, and their shared
    /// purchases reach the family now (``sharedSources(inFamily:directory:subscriptions:ledger:catalog:)``, each
    /// offered to everyone, ``offers(of:to:subscriptions:ledger:catalog:)``).
    mutating func joinOffers(
        inFamily index: Int, directory: CustomerDirectory, subscriptions: SubscriptionBook,
        ledger: TransactionLedger, catalog: Catalog
    ) -> [ShareMove] {
        sharedSources(
            inFamily: index, directory: directory, subscriptions: subscriptions, ledger: ledger, catalog: catalog
        ).flatMap {
            offers(of: $0, to: families[index].everyone, subscriptions: subscriptions, ledger: ledger, catalog: catalog)
        }
    }

    /// ``ShareEffect/scheduleGrant(at:)``: the family-delay grant of share `id` scheduled at `at` in `group` (its
    /// purchaser's event group), and noted to cancel.
    mutating func scheduleGrant(
        ofShare id: Int, at: Instant, group: UInt32, scheduler: inout EventScheduler<StoreEvent>
    ) throws(StoreError) {
        do throws(SchedulingError) {
            let event = try scheduler.schedule(
                .familyGrant(share: id), at: at, priority: StoreEventPriority.storeEvent, group: group)
            noteGrantEvent(event, of: id)
        } catch { throw .scheduling(error) }
    }

    /// ``ShareEffect/grant(restored:)`` of share `id` of a non-consumable: the member's own transaction (A-3,
    /// ``TransactionLedger/memberNonConsumableTransaction(like:member:transactionId:at:)``), noted as the share's at
    /// the ledger's next index; the caller appends it.
    mutating func grantNonConsumable(
        share id: Int, transactionId: String, ledger: TransactionLedger, at now: Instant
    ) -> TransactionRecord {
        guard case .nonConsumable(let index) = shares[id].source else {
            preconditionFailure("share \(id) is not of a non-consumable")
        }
        noteMemberTransaction(ledger.nextIndex, of: id)
        return TransactionLedger.memberNonConsumableTransaction(
            like: ledger.transactions[index], member: shares[id].member, transactionId: transactionId, at: now)
    }

    /// The shares a refund of one-time purchase `index` ends (members get REVOKE with the refund's reason, §4.6):
    /// those of a non-consumable, members in family order; none for another type.
    func sharesEnded(byRefundOf index: Int, ledger: TransactionLedger) -> [Int] {
        ledger.transactions[index].productType == .nonConsumable
            ? sharesOf(.nonConsumable(transactionIndex: index)) : []
    }

    /// The share transition input when the family delay of share `id` ends: whether member and purchaser are still in
    /// one family (A-6: someone left, the member never receives it) and what the purchase gives now.
    func delayEndedInput(
        ofShare id: Int, subscriptions: SubscriptionBook, ledger: TransactionLedger,
        catalog: Catalog
    ) -> ShareInput {
        .delayEnded(
            sameFamily: inOneFamily(shares[id].member, shares[id].purchaser),
            start: shareStart(of: shares[id].source, subscriptions: subscriptions, ledger: ledger, catalog: catalog))
    }

    /// Whether a new purchase of `product` by `purchaser` is shared: the product is shareable and the purchaser's
    /// "Share With Family" main switch is on (reference §4.3; members get it after the family delay, §4.4).
    func sharesNewPurchase(of product: Product, by purchaser: String) -> Bool {
        product.familyShareable && sharesNewPurchases(purchaser)
    }

    /// The purchaser's new subscription `key` to `product` has its sharing switch set by
    /// ``sharesNewPurchase(of:by:)``; returns the purchaser when it is shared (then the family delay starts).
    func startSharingNewPurchase(chain key: ChainID, of product: Product, subscriptions: inout SubscriptionBook)
        -> String?
    {
        let purchaser = subscriptions.chains[key.index].customer
        let shared = sharesNewPurchase(of: product, by: purchaser)
        subscriptions.setSharing(shared, of: key)
        return shared ? purchaser : nil
    }

    /// A-3 and rule member-grant-during-grace: the dates of the transaction share `id` of a subscription gives its
    /// member now (``FamilyRules/memberGrantDates(at:purchaserPurchaseDate:purchaserExpiresDate:memberOriginalPurchaseDate:)``),
    /// from the purchaser's current transaction and the member's chain if they had the share before.
    func memberGrantDates(
        ofShare id: Int, purchaser: PurchaserView, subscriptions: SubscriptionBook, at now: Instant
    ) -> (originalPurchaseDate: Instant, purchaseDate: Instant) {
        FamilyRules.memberGrantDates(
            at: now, purchaserPurchaseDate: purchaser.record.purchaseDate,
            purchaserExpiresDate: purchaser.record.expiresDate ?? now,
            memberOriginalPurchaseDate: shares[id].memberChain.map {
                subscriptions.chains[$0.index].originalPurchaseDate
            })
    }

    /// What ``ShareEffect/revokeMember(reason:)`` takes from the member of share `id`, if they still have it: their
    /// chain's current transaction while the chain keeps access (``FamilyRules/memberKeepsAccess(_:)``), or their
    /// transaction of a shared non-consumable not revoked yet (it is revoked at most once). Nil: nothing to revoke.
    func accessToRevoke(
        ofShare id: Int, subscriptions: SubscriptionBook, ledger: TransactionLedger
    ) -> MemberAccess? {
        switch shares[id].source {
        case .subscription:
            guard let key = shares[id].memberChain,
                FamilyRules.memberKeepsAccess(subscriptions.chains[key.index].state.phase)
            else { return nil }
            return .chain(key, transaction: subscriptions.chains[key.index].currentTransactionIndex)
        case .nonConsumable:
            guard let index = shares[id].memberTransactionIndex, ledger.isUnrevoked(index) else { return nil }
            return .transaction(index)
        }
    }

    /// the chain a member receives the first time a share of the purchaser's subscription `key` reaches them:
    /// its own `originalTransactionId`, `FAMILY_SHARED`, the purchaser's group, sharing off (a member does not share
    /// on), the state the purchaser's notification reports; dates from ``FamilyRules/memberGrantDates(at:purchaserPurchaseDate:purchaserExpiresDate:memberOriginalPurchaseDate:)``.
    /// `share`: the member's share of that chain; `directory` gives the purchaser's position.
    static func memberChain(
        for share: Share, purchaser: PurchaserView, originalTransactionId: String, originalPurchaseDate: Instant,
        directory: CustomerDirectory
    ) -> SubscriptionChain {
        guard case .subscription(let key) = share.source else { preconditionFailure("a share of a subscription") }
        var chain = SubscriptionChain(
            originalTransactionId: originalTransactionId, customer: share.member, group: purchaser.group,
            groupIdentifier: purchaser.groupIdentifier, ownership: .familyShared, sharedFrom: key,
            sharingOn: false, state: purchaser.state, originalPurchaseDate: originalPurchaseDate,
            recentSubscriptionStartDate: originalPurchaseDate, currentTransactionIndex: -1)
        chain.purchaserPosition = directory.positions[purchaser.customer] ?? -1
        return chain
    }
}

/// A share and the input that moves it (``ShareTransition``), as the book's share operations return them for the
/// facade to run in order.
typealias ShareMove = (share: Int, input: ShareInput)

/// What a member holds of a share (``FamilyBook/accessToRevoke(ofShare:subscriptions:ledger:)``): their chain and its
/// current transaction (a subscription), or their transaction (a non-consumable).
enum MemberAccess: Equatable {
    case chain(ChainID, transaction: Int)
    case transaction(Int)

    /// The member's transaction to revoke: their chain's current one, or their non-consumable's.
    var transaction: Int {
        switch self {
        case .chain(_, let index), .transaction(let index): return index
        }
    }
}

/// What a share of a subscription reads of the purchaser's chain: who and which group, its current transaction and
/// the state to report. During the purchaser's own transition the chain is held by ``SimulatedStore/apply(_:to:)``
/// (not in the ``SubscriptionBook``), so the transition hands this view over; otherwise it is read from the book
/// (``init(_:in:ledger:)``).
struct PurchaserView {
    var customer: String
    var group: String
    var groupIdentifier: String
    var record: TransactionRecord
    var state: SubscriptionState
}

extension PurchaserView {
    /// The purchaser's chain `key` as it is in the ``SubscriptionBook``.
    init(_ key: ChainID, in subscriptions: SubscriptionBook, ledger: TransactionLedger) {
        let chain = subscriptions.chains[key.index]
        self.init(
            customer: chain.customer, group: chain.group, groupIdentifier: chain.groupIdentifier,
            record: ledger.transactions[chain.currentTransactionIndex], state: chain.state)
    }
}
