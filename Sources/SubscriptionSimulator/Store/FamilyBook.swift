/// A purchase shared with one family member.
struct Share: Hashable, Sendable {
    enum Source: Hashable, Sendable {
        /// A purchaser's subscription chain.
        case subscription(chain: ChainID)
        /// A purchaser's non-consumable transaction (by index in the ``TransactionLedger``).
        case nonConsumable(transactionIndex: Int)
    }

    var source: Source
    var purchaser: String
    var member: String
    /// Where the share stands (``ShareTransition`` moves it).
    var phase: SharePhase
    /// The family-delay grant event last scheduled for the share (``ShareEffect/scheduleGrant(at:)``).
    var grantEvent: EventID?
    /// The member's own chain, once granted (subscriptions).
    var memberChain: ChainID?
    /// The member's own transaction, once granted (non-consumables).
    var memberTransactionIndex: Int?

    /// A share is between two people; what the member holds is of the source's kind (a chain for a subscription, a
    /// transaction for a non-consumable); a granted share holds it.
    var isWellFormed: Bool {
        guard purchaser != member else { return false }
        let holds: Bool
        switch source {
        case .subscription:
            guard memberTransactionIndex == nil else { return false }
            holds = memberChain != nil
        case .nonConsumable:
            guard memberChain == nil else { return false }
            holds = memberTransactionIndex != nil
        }
        return phase != .granted || holds
    }
}

/// The store's Family Sharing state: family groups, every share of a purchase with one member, and the purchasers'
/// sharing switches (reference §4). The rules are in `Family/` (``FamilyRules``, ``ShareTransition``).
///
/// Invariants (``isConsistent``): a customer is in at most one family, and `familyIndex[person] == i` exactly when
/// `families[i]` contains `person`; no family has more than ``FamilyRules/maximumFamilySize`` people;
/// `shareIdsBySource` lists every share id exactly once, under the share's source, in creation order; there is at
/// most one share per (source, member); each share is well formed (``Share/isWellFormed``).
struct FamilyBook: Hashable, Sendable {
    /// Family groups; a customer is in at most one.
    private(set) var families: [FamilyGroup] = []
    /// Each family member's (and organizer's) place in `families`.
    private(set) var familyIndex: [String: Int] = [:]
    /// Every share of a purchase with one family member; the index is the share's id.
    private(set) var shares: [Share] = []
    /// Share ids by the purchase they share, in creation order.
    private(set) var shareIdsBySource: [Share.Source: [Int]] = [:]
    /// The "Share With Family" (Share New Subscriptions) main switch per customer; on when absent (reference §4.3).
    private(set) var shareNewPurchases: [String: Bool] = [:]
    /// Non-consumable purchases (transaction index) whose purchaser switched sharing off.
    private(set) var nonConsumableSharingOff: Set<Int> = []

    /// The place in `families` of the customer's family.
    func family(of customer: String) -> Int? { familyIndex[customer] }

    /// Whether `member` and `purchaser` are in one family.
    func inOneFamily(_ member: String, _ purchaser: String) -> Bool {
        family(of: member).map { families[$0].contains(purchaser) } ?? false
    }

    /// Whether the customer's "Share With Family" main switch is on (the default).
    func sharesNewPurchases(_ customer: String) -> Bool { shareNewPurchases[customer] ?? true }

    // MARK: - Membership rules (reference §4.2, §4.6; ``FamilyRules``)

    /// A new family may be created by `organizer` only when they are in none (rule one-family-per-customer).
    func checkCanCreateFamily(organizer: String) throws(StoreError) {
        if family(of: organizer) != nil { throw .family(.alreadyInAFamily(customer: organizer)) }
    }

    /// The family `customer` may join: the one `organizer` leads, or the only family when `organizer` is `nil`.
    /// Refused when there is no such family, when `customer` is in a family already (rule one-family-per-customer),
    /// or when the family has ``FamilyRules/maximumFamilySize`` people (rule family-size-limit).
    func familyToJoin(_ customer: String, organizer: String?) throws(StoreError) -> Int {
        guard let index = organizer.flatMap({ family(of: $0) }) ?? (families.count == 1 ? 0 : nil) else {
            throw .noFamily(organizer: organizer)
        }
        if family(of: customer) != nil { throw .family(.alreadyInAFamily(customer: customer)) }
        guard families[index].count < FamilyRules.maximumFamilySize else {
            throw .family(.familyFull(organizer: families[index].organizer))
        }
        return index
    }

    /// The shares that end when `customer` leaves their family (REVOKE, §4.6), in the order they end, and the family:
    /// the organizer leaving disbands it, so every share between its people ends; a member loses what others shared
    /// with them, then the others lose what the member shared (family order). Refused when `customer` is in no family
    /// (rule leave-needs-a-family).
    func sharesEndedByLeaving(_ customer: String) throws(StoreError) -> (family: Int, shares: [Int]) {
        guard let index = family(of: customer) else { throw .family(.notInAFamily(customer: customer)) }
        let group = families[index]
        if group.organizer == customer {
            return (
                index,
                shares.indices.filter { group.contains(shares[$0].member) && group.contains(shares[$0].purchaser) }
            )
        }
        let lost = shares.indices.filter { shares[$0].member == customer && group.contains(shares[$0].purchaser) }
        return (index, lost + orderedShares(where: { $0.purchaser == customer && group.contains($0.member) }))
    }

    /// `customer` leaves the family at `index`: the organizer disbands it, a member is removed.
    mutating func leave(_ customer: String, familyAt index: Int) {
        if families[index].organizer == customer { disband(index) } else { remove(customer, fromFamilyAt: index) }
    }

    /// A new family led by `organizer`, who is in no family.
    mutating func createFamily(organizer: String) {
        families.append(FamilyGroup(organizer: organizer))
        familyIndex[organizer] = families.count - 1
    }

    /// `customer`, in no family, joins the family at `index`.
    mutating func add(_ customer: String, toFamilyAt index: Int) {
        families[index].add(customer)
        familyIndex[customer] = index
    }

    /// `customer`, a member (not the organizer) of the family at `index`, leaves it.
    mutating func remove(_ customer: String, fromFamilyAt index: Int) {
        families[index].remove(customer)
        familyIndex[customer] = nil
    }

    /// The family at `index` is disbanded; later families move down one place.
    mutating func disband(_ index: Int) {
        families.remove(at: index)
        familyIndex = [:]
        for (position, family) in families.enumerated() {
            for person in family.everyone { familyIndex[person] = position }
        }
    }

    /// The share of `source` with `member`, if there is one.
    func existingShare(of source: Share.Source, with member: String) -> Int? {
        shareIdsBySource[source]?.first { shares[$0].member == member }
    }

    /// The share of `source` (bought by `purchaser`) with `member`, created (ended: nothing given) if needed.
    mutating func share(of source: Share.Source, purchaser: String, with member: String) -> Int {
        if let id = existingShare(of: source, with: member) { return id }
        shares.append(Share(source: source, purchaser: purchaser, member: member, phase: .ended))
        shareIdsBySource[source, default: []].append(shares.count - 1)
        return shares.count - 1
    }

    // MARK: - Switches and shares

    /// The customer's "Share With Family" main switch.
    mutating func setSharesNewPurchases(_ on: Bool, for customer: String) { shareNewPurchases[customer] = on }

    /// The purchaser switched sharing of the non-consumable purchase (transaction index) `index` off or back on.
    mutating func setSharingOff(_ off: Bool, nonConsumable index: Int) {
        if off { nonConsumableSharingOff.insert(index) } else { nonConsumableSharingOff.remove(index) }
    }

    /// **stop-sharing-needs-sharing-on** for the non-consumable purchase (transaction index) `index` of `productId`:
    /// refused when the product is not shareable or its purchaser `customer` switched sharing off already. Switches it
    /// off and returns the shares that end (REVOKE, reason 0), members in family order (reference §4.4, Appendix A-6).
    mutating func stopSharing(
        nonConsumable index: Int, shareable: Bool, customer: String, productId: String
    ) throws(StoreError) -> [Int] {
        guard shareable, !nonConsumableSharingOff.contains(index) else {
            throw .family(.sharingAlreadyOff(customer: customer, productId: productId))
        }
        setSharingOff(true, nonConsumable: index)
        return sharesEnded(bySwitchingOff: .nonConsumable(transactionIndex: index))
    }

    /// **start-sharing-needs-sharing-off** for the non-consumable purchase (transaction index) `index` of `productId`:
    /// refused unless its purchaser `customer` switched sharing off. Switches it back on (reference §4.4).
    mutating func startSharing(nonConsumable index: Int, customer: String, productId: String) throws(StoreError) {
        guard nonConsumableSharingOff.contains(index) else {
            throw .family(.sharingAlreadyOn(customer: customer, productId: productId))
        }
        setSharingOff(false, nonConsumable: index)
    }

    /// The shares that end when the purchaser switches sharing of `source` off, members in family order.
    func sharesEnded(bySwitchingOff source: Share.Source) -> [Int] {
        orderedShares(where: { $0.source == source })
    }

    /// Moves share `id` by ``ShareTransition`` with `input`: keeps the new phase and returns the effects the store
    /// carries out (none when the transition ignores the input).
    mutating func apply(_ input: ShareInput, toShare id: Int) -> [ShareEffect] {
        switch ShareTransition.transition(shares[id].phase, input) {
        case .ignored:
            return []
        case .changed(let phase, let effects):
            shares[id].phase = phase
            return effects
        }
    }

    /// The grant event share `id` last scheduled, to cancel (``ShareEffect/cancelGrant``).
    func grantEvent(of id: Int) -> EventID? { shares[id].grantEvent }

    /// The family-delay grant event scheduled for share `id` (``ShareEffect/scheduleGrant(at:)``).
    mutating func noteGrantEvent(_ event: EventID, of id: Int) { shares[id].grantEvent = event }

    /// The member's own transaction of a shared non-consumable (share `id`), at `index` in the ledger.
    mutating func noteMemberTransaction(_ index: Int, of id: Int) { shares[id].memberTransactionIndex = index }

    /// Share `id` of a subscription is granted: the member holds `memberChain`.
    mutating func grant(_ id: Int, memberChain: ChainID) {
        shares[id].memberChain = memberChain
        shares[id].phase = .granted
    }

    /// The fan-out targets of the purchaser's chain `key`: the member chains of its granted shares, members in
    /// family order (renewals, recoveries and `isUpgraded` reach them with the purchaser, §4.4, §4.5).
    func fanOutTargets(of key: ChainID) -> [ChainID] {
        // Most stores share nothing: no hashing of the source then.
        if shareIdsBySource.isEmpty { return [] }
        var targets: [ChainID] = []
        for id in sharesOf(.subscription(chain: key)) where shares[id].phase == .granted {
            if let member = shares[id].memberChain { targets.append(member) }
        }
        return targets
    }

    /// The instant of a grant of `source` waiting for the family delay, if any (the first share's, in creation order).
    func pendingGrantInstant(of source: Share.Source) -> Instant? {
        for id in shareIdsBySource[source] ?? [] {
            if case .pending(let at) = shares[id].phase { return at }
        }
        return nil
    }

    /// Shares of one purchase, members in family order.
    func sharesOf(_ source: Share.Source) -> [Int] {
        // Most stores share nothing: no hashing of the source then.
        if shareIdsBySource.isEmpty { return [] }
        return inFamilyOrder(shareIdsBySource[source] ?? [])
    }

    /// Share ids matching `predicate`, members in family order.
    func orderedShares(where predicate: (Share) -> Bool) -> [Int] {
        inFamilyOrder(shares.indices.filter { predicate(shares[$0]) })
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

    /// Whether the invariants in the type's documentation hold.
    var isConsistent: Bool {
        var seen: [String: Int] = [:]
        for (index, family) in families.enumerated() {
            if family.count > FamilyRules.maximumFamilySize { return false }
            for person in family.everyone {
                if seen[person] != nil { return false }
                seen[person] = index
            }
        }
        guard seen == familyIndex else { return false }
        let listed = shareIdsBySource.flatMap { source, ids in ids.map { (source, $0) } }
        guard listed.count == shares.count,
            listed.allSatisfy({ source, id in shares.indices.contains(id) && shares[id].source == source }),
            shareIdsBySource.values.allSatisfy({ $0 == $0.sorted() })
        else { return false }
        guard shareIdsBySource.values.allSatisfy({ ids in Set(ids.map { shares[$0].member }).count == ids.count })
        else { return false }
        return shares.allSatisfy(\.isWellFormed)
    }
}
