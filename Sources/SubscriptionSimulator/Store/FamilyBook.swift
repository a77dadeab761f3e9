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
}

/// The store's Family Sharing state: family groups, every share of a purchase with one member, and the purchasers'
/// sharing switches (reference §4). The rules are in `Family/` (``FamilyRules``, ``ShareTransition``).
///
/// Invariants (``isConsistent``): a customer is in at most one family, and `familyIndex[person] == i` exactly when
/// `families[i]` contains `person`; no family has more than ``FamilyRules/maximumFamilySize`` people;
/// `shareIdsBySource` lists every share id exactly once, under the share's source, in creation order; there is at
/// most one share per (source, member).
struct FamilyBook: Hashable, Sendable {
    /// Family groups; a customer is in at most one.
    private(set) var families: [FamilyGroup] = []
    /// Each family member's (and organizer's) place in `families`.
    private(set) var familyIndex: [String: Int] = [:]
    /// Every share of a purchase with one family member; the index is the share's id.
    var shares: [Share] = []
    /// Share ids by the purchase they share, in creation order.
    private(set) var shareIdsBySource: [Share.Source: [Int]] = [:]
    /// The "Share With Family" (Share New Subscriptions) main switch per customer; on when absent (reference §4.3).
    var shareNewPurchases: [String: Bool] = [:]
    /// Non-consumable purchases (transaction index) whose purchaser switched sharing off.
    var nonConsumableSharingOff: Set<Int> = []

    /// The place in `families` of the customer's family.
    func family(of customer: String) -> Int? { familyIndex[customer] }

    /// Whether `member` and `purchaser` are in one family.
    func inOneFamily(_ member: String, _ purchaser: String) -> Bool {
        family(of: member).map { families[$0].contains(purchaser) } ?? false
    }

    /// Whether the customer's "Share With Family" main switch is on (the default).
    func sharesNewPurchases(_ customer: String) -> Bool { shareNewPurchases[customer] ?? true }

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
        return shareIdsBySource.values.allSatisfy { ids in Set(ids.map { shares[$0].member }).count == ids.count }
    }
}
