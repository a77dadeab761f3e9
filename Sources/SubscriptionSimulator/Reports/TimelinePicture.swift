/// The `svg` format: a run's timeline as a picture (docs/scenario-format.md, "The picture"). One lane per customer
/// (a family's organizer first, its members under it, inside the family's group), in each lane one bar per
/// subscription or share (keyed by its original transaction) drawn over virtual time, split into phases as the
/// notifications report them (active, free trial or offer, owned, billing grace, billing retry, expired, revoked or
/// refunded; each with its own colour, pattern and label) and into parts at each product, billing plan or price
/// change (each part named); a marker per notification with a shape and a short printed label per kind (routine
/// renewals as small ticks) and a `<title>` with its type, subtype, instant and status; "cancels on DATE" while
/// auto-renew is off; the access each customer gained and lost (``EntitlementChange``); the family delay at the
/// member's bar, from the event that started that share; joins and leaves; a dated (or offset) axis and a legend of
/// everything drawn. A run with more customers than lanes gets a strip with the number of customers in each phase
/// over time, the most eventful customers first and identical lanes collapsed into one with a count.
///
/// It reads what the run sent (and the scenario's family actions, for joins, leaves and why a share was revoked) and
/// never changes a rule: a phase starts where a notification reports it (or where the grace period it reports ends)
/// and lasts until the next one. It is fed in order like any sink (``add(_:_:)``) and keeps only what it draws (at
/// most ``Caps``), so the file stays bounded however large the run (under 1 MB: docs/scenario-format.md); what it
/// leaves out is counted and said in a note at the bottom. Deterministic: the same notifications give the same bytes.
package struct TimelinePicture {
    /// How much is kept and drawn at most [assumed: chosen so that the file stays under 1 MB at any customer count
    /// and a browser draws it at once; simbench `picture` measures it].
    package struct Caps: Sendable {
        /// Lanes drawn (a collapsed lane counts once).
        package var lanes = 40
        /// Customers whose markers and access changes are kept (in the order they first appear); every customer
        /// still counts in the phase strip and in the ranking by events.
        package var detailedCustomers = 1_000
        /// Bars (subscriptions or shares) drawn in one lane.
        package var barsPerLane = 4
        /// Notification markers kept per customer; later notifications still shape the bars.
        package var markersPerLane = 60
        /// Phase pieces kept per bar; later changes are left out (and counted).
        package var piecesPerBar = 40
        /// Access changes kept per customer.
        package var accessPerLane = 40
        /// App-level markers (notifications with no recipient).
        package var appMarkers = 60

        package init() {}
    }

    /// A phase a bar is drawn in.
    package enum Phase: Int, CaseIterable, Sendable {
        case active, offer, owned, grace, retry, expired, revoked

        var name: String {
            switch self {
            case .active: return "active"
            case .offer: return "free trial / offer"
            case .owned: return "owned (one-time purchase)"
            case .grace: return "billing grace"
            case .retry: return "billing retry"
            case .expired: return "expired"
            case .revoked: return "revoked / refunded"
            }
        }

        /// The short label written inside a bar wide enough for it.
        var label: String {
            switch self {
            case .active: return "active"
            case .offer: return "offer"
            case .owned: return "owned"
            case .grace: return "grace"
            case .retry: return "retry"
            case .expired: return "expired"
            case .revoked: return "revoked"
            }
        }

        /// The fill: a pattern (``TimelinePicture/patterns``) so that no phase is told by its colour alone.
        var fill: String { "url(#phase-\(label))" }
        var textColor: String { self == .expired || self == .offer || self == .grace ? "#111" : "#fff" }
        /// Whether a customer in this phase has access (for the strip's order: access first).
        var rank: Int {
            switch self {
            case .active: return 0
            case .offer: return 1
            case .owned: return 2
            case .grace: return 3
            case .retry: return 4
            case .revoked: return 5
            case .expired: return 6
            }
        }
    }

    struct Piece {
        var start: Instant
        var phase: Phase
        var label: String
    }

    /// A part of a bar on one product, billing plan and price.
    struct Segment {
        var start: Instant
        var productId: String
        var plan: BillingPlan
        var price: Price?
    }

    struct Bar {
        var key: String
        var productId: String
        var shared: Bool
        var pieces: [Piece] = []
        var segments: [Segment] = []
        /// The reported grace period's end: the bar turns to billing retry there unless a notification comes first.
        var graceEnds: Instant?
        /// The family delays drawn at this bar: the event that started the share and its arrival.
        var delays: [(start: Instant, arrival: Instant)] = []
        /// While auto-renew is off: from, to (nil while it lasts), and the date it ends on.
        var autoRenewOff: [(from: Instant, to: Instant?, cancelsOn: Instant?)] = []
        /// Whether this is a one-time purchase (consumable, non-consumable, non-renewing).
        var oneTime: Bool
    }

    struct Marker {
        var instant: Instant
        var bar: Int
        var kind: EventKind
        /// The printed label (the kind's, or with the reason for a REVOKE).
        var label: String
        var title: String
    }

    struct Access {
        var instant: Instant
        var gained: [String]
        var lost: [String]
    }

    /// A family mark on a member's lane: joined, left, a share cancelled inside the delay.
    struct FamilyMark {
        var instant: Instant
        var label: String
        var title: String
        /// A share cancelled inside the delay: its start (the mark spans start...instant).
        var cancelledFrom: Instant?
    }

    struct Lane {
        var customer: String
        /// 0: not in a family; 1: organizer; 2: member.
        var family: Int
        var bars: [Bar] = []
        var markers: [Marker] = []
        var access: [Access] = []
        var products: [String] = []
        /// Intervals with access: start and end (nil while it lasts).
        var accessSpans: [(start: Instant, end: Instant?)] = []
        /// Intervals inside the family group (members): from, to (nil while it lasts).
        var membership: [(from: Instant, to: Instant?)] = []
        var familyMarks: [FamilyMark] = []
        /// Notifications this customer received (all, also those not kept).
        var events = 0
        var omittedMarkers = 0
    }

    /// What every customer (also one without a kept lane) counts for the phase strip: the phase of each of their
    /// subscriptions, and the phase that stands for the customer (the first by ``Phase/rank``).
    struct Standing {
        var bars: [(key: String, phase: Phase)] = []
        var phase: Phase?
        var events = 0
    }

    let name: String
    let start: Instant
    let seed: UInt64
    let caps: Caps
    let view: PictureView
    /// The app's family delay, in milliseconds (`app.familyDelay`).
    let familyDelay: Int64
    let familyDelayText: String
    /// Products a family can share.
    let shareable: Set<String>
    var lanes: [Lane] = []
    var laneIndex: [String: Int] = [:]
    /// The customers shown (``PictureView/customers``), in the scenario's order.
    let selected: [String]
    let customerCount: Int
    var standings: [String: Standing] = [:]
    /// Changes in the number of customers per phase, by 10-minute bucket from the start (index: phase).
    var phaseDeltas: [Int64: [Int32]] = [:]
    var appMarkers: [Marker] = []
    var notificationCount = 0
    var omittedNotifications = 0
    var omittedPieces = 0
    var omittedBars = 0
    var omittedAccess = 0
    var omittedAppMarkers = 0
    var last: Instant
    /// The scenario's family actions, in time order, applied as the run reaches them.
    let familyActions: [(at: Instant, action: ScenarioAction)]
    var nextAction = 0
    /// When the share of each product was last started (a purchase, an upgrade, a recovery, sharing turned on).
    var shareStarts: [String: Instant] = [:]
    /// When each member last joined.
    var joined: [String: Instant] = [:]

    static let bucket: Int64 = 600_000

    /// `customers`: every customer, in the scenario's order; `families`: organizer and members. The lanes are the
    /// families' (organizer, then members) followed by the other customers; those `view` selects.
    package init(
        name: String, start: Instant, seed: UInt64, customers: [String], families: [(String, [String])],
        caps: Caps = Caps(), view: PictureView = PictureView(), familyDelay: CalendarDuration = .hours(1),
        shareable: Set<String> = [], familyActions: [(at: Instant, action: ScenarioAction)] = []
    ) {
        self.name = name
        self.start = start
        self.seed = seed
        self.caps = caps
        self.view = view
        self.shareable = shareable
        self.familyDelay = start.milliseconds(to: CalendarMath.add(familyDelay, to: start))
        familyDelayText = "+" + Self.duration(self.familyDelay)
        last = start
        let chosen = customers.filter { view.selects($0) }
        selected = chosen
        customerCount = chosen.count
        let chosenSet = Set(chosen)
        var joiners: [String] = []
        var actions: [(at: Instant, action: ScenarioAction)] = []
        for entry in familyActions {
            switch entry.action {
            case .joinFamily(let c):
                if !joiners.contains(c) { joiners.append(c) }
                actions.append(entry)
            case .leaveFamily, .stopSharing, .startSharing, .refund: actions.append(entry)
            default: break
            }
        }
        self.familyActions = actions.sorted { $0.at < $1.at }
        func addLane(_ customer: String, family: Int) {
            guard lanes.count < caps.detailedCustomers, laneIndex[customer] == nil, chosenSet.contains(customer)
            else { return }
            laneIndex[customer] = lanes.count
            lanes.append(Lane(customer: customer, family: family))
        }
        for (organizer, members) in families {
            addLane(organizer, family: 1)
            for member in members {
                addLane(member, family: 2)
                if let l = laneIndex[member] { lanes[l].membership.append((start, nil)) }
            }
            for joiner in joiners where !members.contains(joiner) && joiner != organizer {
                addLane(joiner, family: 2)
            }
        }
        for customer in chosen {
            if lanes.count >= caps.detailedCustomers { break }
            addLane(customer, family: 0)
        }
    }

    /// The picture of `scenario`'s run (its customers, family, family actions and shareable products).
    package init(scenario: Scenario, caps: Caps = Caps(), view: PictureView = PictureView()) {
        self.init(
            name: scenario.name, start: scenario.start, seed: scenario.seed, customers: scenario.customers,
            families: scenario.family.map { [($0.organizer, $0.members)] } ?? [], caps: caps, view: view,
            familyDelay: scenario.app.familyDelay,
            shareable: Set(scenario.catalog.products.filter(\.familyShareable).map(\.id)),
            familyActions: scenario.timeline.map { ($0.at, $0.action) })
    }

    /// Takes what the store sent next, in order (as a ``RunSink`` is given it).
    package mutating func add(_ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>) {
        for n in notifications { add(n) }
        for c in changes { add(c) }
    }

    // MARK: family actions

    /// Applies the scenario's family actions up to `instant` (inclusive): joins and leaves on the members' lanes,
    /// shares started by sharing turned on, shares cancelled inside the family delay.
    mutating func applyActions(through instant: Instant) {
        while nextAction < familyActions.count && familyActions[nextAction].at <= instant {
            let (at, action) = familyActions[nextAction]
            nextAction += 1
            switch action {
            case .joinFamily(let c):
                joined[c] = at
                if let l = laneIndex[c] {
                    lanes[l].membership.append((at, nil))
                    lanes[l].familyMarks.append(
                        FamilyMark(
                            instant: at, label: "JOINED", title: "\(c) joins the family · \(CalendarMath.iso8601(at))"))
                }
            case .leaveFamily(let c):
                if let l = laneIndex[c] {
                    if let open = lanes[l].membership.indices.last, lanes[l].membership[open].to == nil {
                        lanes[l].membership[open].to = at
                    }
                    lanes[l].familyMarks.append(
                        FamilyMark(
                            instant: at, label: "LEFT", title: "\(c) leaves the family · \(CalendarMath.iso8601(at))"))
                }
                // A share still inside its delay for this member never arrives.
                for product in shareStarts.keys.sorted() {
                    guard let started = shareStarts[product], started.milliseconds(to: at) < familyDelay else {
                        continue
                    }
                    cancelShare(member: c, product: product, from: started, at: at, why: "\(c) left the family")
                }
            case .stopSharing(let purchaser, let product):
                if let started = shareStarts[product], started.milliseconds(to: at) < familyDelay {
                    for lane in lanes where lane.family == 2 && lane.customer != purchaser && isMember(lane, at: at) {
                        cancelShare(
                            member: lane.customer, product: product, from: started, at: at, why: "sharing turned off")
                    }
                }
                shareStarts[product] = nil
            case .startSharing(_, let product):
                shareStarts[product] = at
            default: break
            }
        }
    }

    func isMember(_ lane: Lane, at instant: Instant) -> Bool {
        lane.membership.contains { $0.from <= instant && ($0.to.map { instant < $0 } ?? true) }
    }

    mutating func cancelShare(member: String, product: String, from started: Instant, at: Instant, why: String) {
        guard let l = laneIndex[member] else { return }
        lanes[l].familyMarks.append(
            FamilyMark(
                instant: at, label: "SHARE CANCELLED",
                title: "share of \(product) started \(CalendarMath.iso8601(started)) cancelled inside the family "
                    + "delay (\(why)) · \(CalendarMath.iso8601(at))", cancelledFrom: started))
    }

    // MARK: notifications

    mutating func add(_ n: SentNotification) {
        notificationCount += 1
        if n.instant > last { last = n.instant }
        if nextAction < familyActions.count { applyActions(through: n.instant) }
        guard let recipient = n.recipient else {
            if appMarkers.count < caps.appMarkers {
                let kind = EventKind.of(n)
                appMarkers.append(
                    Marker(instant: n.instant, bar: 0, kind: kind, label: kind.label, title: Self.title(n)))
            } else {
                omittedAppMarkers += 1
            }
            return
        }
        guard view.selects(recipient) else { return }
        updateStanding(recipient, n)
        guard let l = laneIndex[recipient] else {
            omittedNotifications += 1
            return
        }
        lanes[l].events += 1
        var barIndex = -1
        if let t = n.transaction {
            let key = t.originalTransactionId
            if let found = lanes[l].bars.lastIndex(where: { $0.key == key }) {
                barIndex = found
            } else if lanes[l].bars.count < caps.barsPerLane {
                lanes[l].bars.append(
                    Bar(
                        key: key, productId: t.productId, shared: t.ownership == .familyShared,
                        oneTime: t.productType != .autoRenewable))
                barIndex = lanes[l].bars.count - 1
            } else {
                omittedBars += 1
            }
            if barIndex >= 0 {
                noteSegment(lane: l, bar: barIndex, n, t)
                noteAutoRenew(lane: l, bar: barIndex, n)
                noteShare(lane: l, bar: barIndex, n, t)
                if let (phase, label) = Self.phase(of: n) {
                    setPhase(lane: l, bar: barIndex, phase, at: n.instant, label: label)
                    lanes[l].bars[barIndex].graceEnds = phase == .grace ? n.renewal?.gracePeriodExpiresDate : nil
                }
            }
        }
        guard lanes[l].markers.count < caps.markersPerLane else {
            lanes[l].omittedMarkers += 1
            return
        }
        let kind = EventKind.of(n)
        var label = kind.label
        if n.type == .revoke, let reason = revokeReason(n, lane: l) { label += ": " + reason }
        lanes[l].markers.append(
            Marker(
                instant: n.instant, bar: max(barIndex, 0), kind: kind, label: label,
                title: Self.title(n)))
    }

    /// The customer's standing for the phase strip, and the 10-minute bucket's change in counts.
    mutating func updateStanding(_ customer: String, _ n: SentNotification) {
        var standing = standings[customer] ?? Standing()
        standing.events += 1
        if let t = n.transaction, let (phase, _) = Self.phase(of: n) {
            let key = t.originalTransactionId
            if let i = standing.bars.firstIndex(where: { $0.key == key }) {
                standing.bars[i].phase = phase
            } else if standing.bars.count < 8 {
                standing.bars.append((key, phase))
            }
            let best = standing.bars.min { $0.phase.rank < $1.phase.rank }?.phase
            if best != standing.phase {
                let bucket = max(0, start.milliseconds(to: n.instant)) / Self.bucket
                var deltas = phaseDeltas[bucket] ?? [Int32](repeating: 0, count: Phase.allCases.count)
                if let old = standing.phase { deltas[old.rawValue] -= 1 }
                if let best { deltas[best.rawValue] += 1 }
                phaseDeltas[bucket] = deltas
                standing.phase = best
            }
        }
        standings[customer] = standing
    }

    /// Splits the bar where its product, billing plan or price changes (a purchase, a renewal, an upgrade, a
    /// redeemed offer: the notifications that report the transaction now in force).
    mutating func noteSegment(lane l: Int, bar b: Int, _ n: SentNotification, _ t: TransactionRecord) {
        let inForce: Bool
        switch n.type {
        case .subscribed, .didRenew, .offerRedeemed, .oneTimeCharge: inForce = true
        case .didChangeRenewalPref: inForce = n.subtype == .upgrade || (n.subtype == nil && t.purchaseDate == n.instant)
        default: inForce = false
        }
        let plan: BillingPlan = t.commitment == nil ? .upfront : .monthly
        // An offer's price is the offer's; the part shows the regular price once it is paid.
        let price: Price? = t.offer == nil ? t.price : nil
        guard let current = lanes[l].bars[b].segments.last else {
            lanes[l].bars[b].segments.append(
                Segment(start: n.instant, productId: t.productId, plan: plan, price: price))
            return
        }
        guard inForce, lanes[l].bars[b].segments.count < caps.piecesPerBar else { return }
        if current.productId != t.productId || current.plan != plan
            || (price != nil && current.price != nil && price != current.price)
        {
            lanes[l].bars[b].segments.append(
                Segment(start: n.instant, productId: t.productId, plan: plan, price: price))
        } else if current.price == nil, let price {
            lanes[l].bars[b].segments[lanes[l].bars[b].segments.count - 1].price = price
        }
    }

    /// Auto-renew off: from `AUTO_RENEW_DISABLED` to `AUTO_RENEW_ENABLED` or the end of the subscription.
    mutating func noteAutoRenew(lane l: Int, bar b: Int, _ n: SentNotification) {
        let open = lanes[l].bars[b].autoRenewOff.last.map { $0.to == nil } ?? false
        switch (n.type, n.subtype) {
        case (.didChangeRenewalStatus, .autoRenewDisabled):
            guard !open, lanes[l].bars[b].autoRenewOff.count < 8 else { return }
            lanes[l].bars[b].autoRenewOff.append(
                (n.instant, nil, n.renewal?.renewalDate ?? n.transaction?.expiresDate))
        case (.didChangeRenewalStatus, .autoRenewEnabled), (.expired, _), (.revoke, _), (.refund, _),
            (.didChangeRenewalPref, .upgrade), (.subscribed, _):
            if open { lanes[l].bars[b].autoRenewOff[lanes[l].bars[b].autoRenewOff.count - 1].to = n.instant }
        default: break
        }
    }

    /// The family delay: a share's arrival on a member's bar, measured from the event that started that share (the
    /// purchaser's purchase, upgrade or recovery of the product, sharing turned on, the member joining); and those
    /// events, from the purchaser's lanes.
    mutating func noteShare(lane l: Int, bar b: Int, _ n: SentNotification, _ t: TransactionRecord) {
        if t.ownership == .familyShared {
            guard n.type == .subscribed || n.type == .oneTimeCharge, lanes[l].bars[b].delays.count < 4 else { return }
            var started = shareStarts[t.productId]
            if let join = joined[lanes[l].customer], join <= n.instant, started.map({ $0 < join }) ?? true {
                started = join
            }
            guard let started, started < n.instant else { return }
            lanes[l].bars[b].delays.append((started, n.instant))
            return
        }
        guard lanes[l].family != 0, shareable.isEmpty || shareable.contains(t.productId) else { return }
        switch (n.type, n.subtype) {
        case (.subscribed, _), (.oneTimeCharge, _), (.didChangeRenewalPref, .upgrade), (.didRenew, .billingRecovery):
            shareStarts[t.productId] = n.instant
        default: break
        }
    }

    /// Why a share was revoked: the member left, sharing was turned off, a refund, a plan that is not shareable.
    func revokeReason(_ n: SentNotification, lane l: Int) -> String? {
        guard let t = n.transaction, let revocation = t.revocation else { return nil }
        if revocation.isRefund { return "refund" }
        let customer = lanes[l].customer
        var sameInstant: [ScenarioAction] = []
        var i = nextAction - 1
        while i >= 0 && familyActions[i].at == n.instant {
            sameInstant.append(familyActions[i].action)
            i -= 1
        }
        for action in sameInstant {
            if case .leaveFamily(let c) = action { return c == customer ? "left the family" : "\(c) left" }
        }
        for action in sameInstant {
            if case .stopSharing = action { return "sharing off" }
            if case .refund = action { return "refund" }
        }
        if revocation.reason != 0 { return "refund" }
        if !shareable.isEmpty {
            // The purchaser moved to a plan the family cannot share.
            for lane in lanes where lane.family == 1 {
                if let bar = lane.bars.first(where: { !$0.shared }), let product = bar.segments.last?.productId,
                    !shareable.contains(product)
                {
                    return "plan not shareable"
                }
            }
        }
        return "share ended"
    }

    mutating func setPhase(lane l: Int, bar b: Int, _ phase: Phase, at instant: Instant, label: String) {
        // A grace period that ended before this notification: billing retry from its end.
        if let ends = lanes[l].bars[b].graceEnds, ends < instant, lanes[l].bars[b].pieces.last?.phase == .grace {
            lanes[l].bars[b].graceEnds = nil
            setPhase(lane: l, bar: b, .retry, at: ends, label: Phase.retry.label)
        }
        if let current = lanes[l].bars[b].pieces.last, current.phase == phase { return }
        guard lanes[l].bars[b].pieces.count < caps.piecesPerBar else {
            omittedPieces += 1
            return
        }
        if let current = lanes[l].bars[b].pieces.last, current.start == instant {
            lanes[l].bars[b].pieces[lanes[l].bars[b].pieces.count - 1] = Piece(
                start: instant, phase: phase, label: label)
            if lanes[l].bars[b].pieces.count >= 2,
                lanes[l].bars[b].pieces[lanes[l].bars[b].pieces.count - 2].phase == phase
            {
                lanes[l].bars[b].pieces.removeLast()
            }
            return
        }
        lanes[l].bars[b].pieces.append(Piece(start: instant, phase: phase, label: label))
    }

    mutating func add(_ change: EntitlementChange) {
        if change.instant > last { last = change.instant }
        guard let l = laneIndex[change.customer] else { return }
        let before = lanes[l].products
        lanes[l].products = change.products
        let gained = change.products.filter { !before.contains($0) }
        let lost = before.filter { !change.products.contains($0) }
        if before.isEmpty && !change.products.isEmpty {
            if lanes[l].accessSpans.count < caps.accessPerLane { lanes[l].accessSpans.append((change.instant, nil)) }
        } else if !before.isEmpty && change.products.isEmpty, let open = lanes[l].accessSpans.indices.last,
            lanes[l].accessSpans[open].end == nil
        {
            lanes[l].accessSpans[open].end = change.instant
        }
        guard !gained.isEmpty || !lost.isEmpty else { return }
        if lanes[l].access.count < caps.accessPerLane {
            lanes[l].access.append(Access(instant: change.instant, gained: gained, lost: lost))
        } else {
            omittedAccess += 1
        }
    }

    /// The phase a notification reports for its subscription or purchase; nil when it reports none (a consumable,
    /// a consumption request).
    static func phase(of n: SentNotification) -> (Phase, String)? {
        guard let t = n.transaction else { return nil }
        if let revocation = t.revocation { return (.revoked, revocation.isRefund ? "refunded" : "revoked") }
        let phase: Phase
        if let status = n.status {
            switch status {
            case .active:
                if let offer = t.offer, let expires = t.expiresDate, n.instant < expires {
                    return (.offer, offer.mode == .freeTrial ? "free trial" : "offer")
                }
                phase = .active
            case .gracePeriod: phase = .grace
            case .billingRetry: phase = .retry
            case .expired: phase = .expired
            case .revoked: phase = .revoked
            }
            return (phase, phase.label)
        }
        switch t.productType {
        case .nonConsumable: return (.owned, Phase.owned.label)
        case .nonRenewing:
            if let expires = t.expiresDate, expires <= n.instant { return (.expired, Phase.expired.label) }
            return (.active, Phase.active.label)
        case .autoRenewable, .consumable: return nil
        }
    }

    /// A marker's tooltip: type and subtype, instant, status, recipient and transaction.
    static func title(_ n: SentNotification) -> String {
        var text = n.type.rawValue
        if let subtype = n.subtype { text += " " + subtype.rawValue }
        text += " · " + CalendarMath.iso8601(n.instant)
        text += " · status " + (n.status.map { String($0.statusCode) } ?? "-")
        text += " · " + (n.recipient ?? "(app)")
        if let t = n.transaction {
            text += " · " + t.productId + " tx " + t.transactionId
            if t.ownership == .familyShared { text += " (family shared)" }
        }
        return text
    }

    /// `family.monthly`: a product id's last two dot-separated parts (the app's prefix left out).
    static func shortName(_ productId: String) -> String {
        let parts = productId.split(separator: ".")
        guard parts.count > 2 else { return productId }
        return parts.suffix(2).joined(separator: ".")
    }
}

/// How a notification is drawn: a shape, a colour, a short printed label; routine renewals are ticks.
struct EventKind: Equatable {
    enum Shape: String {
        case tick, up, down, cross, diamond, square, hollowSquare, arrow, star, hollowCircle, circle
    }

    var label: String
    var shape: Shape
    var color: String
    /// The legend's words for it.
    var meaning: String

    static func of(_ n: SentNotification) -> EventKind {
        let shared = n.transaction?.ownership == .familyShared
        switch n.type {
        case .subscribed:
            if shared { return EventKind(label: "SHARED", shape: .up, color: "#6a1b9a", meaning: "share arrives") }
            return n.subtype == .resubscribe
                ? EventKind(label: "RESUB", shape: .up, color: "#1b5e20", meaning: "resubscribed")
                : EventKind(label: "BUY", shape: .up, color: "#1b5e20", meaning: "subscribed")
        case .oneTimeCharge:
            return EventKind(
                label: shared ? "SHARED" : "PURCHASE", shape: .circle, color: shared ? "#6a1b9a" : "#00695c",
                meaning: "one-time purchase")
        case .didRenew:
            if n.subtype == .billingRecovery {
                return EventKind(label: "RECOVERED", shape: .up, color: "#2e7d32", meaning: "billing recovered")
            }
            return EventKind(label: "", shape: .tick, color: "#111", meaning: "renewal (tick)")
        case .didFailToRenew:
            return EventKind(label: "FAIL", shape: .down, color: "#e65100", meaning: "renewal failed")
        case .gracePeriodExpired:
            return EventKind(label: "GRACE END", shape: .down, color: "#8d6e00", meaning: "grace period over")
        case .expired:
            return EventKind(label: "EXPIRED", shape: .hollowCircle, color: "#424242", meaning: "expired")
        case .didChangeRenewalStatus:
            return n.subtype == .autoRenewDisabled
                ? EventKind(label: "AUTO-RENEW OFF", shape: .hollowSquare, color: "#0d47a1", meaning: "auto-renew off")
                : EventKind(label: "AUTO-RENEW ON", shape: .square, color: "#0d47a1", meaning: "auto-renew on")
        case .didChangeRenewalPref:
            let label: String
            switch n.subtype {
            case .upgrade: label = "PLAN ↑"
            case .downgrade: label = "PLAN ↓"
            default: label = "PLAN →"
            }
            return EventKind(label: label, shape: .arrow, color: "#00695c", meaning: "plan change")
        case .offerRedeemed:
            return EventKind(label: "OFFER", shape: .star, color: "#6a1b9a", meaning: "offer redeemed")
        case .priceIncrease:
            return EventKind(
                label: n.subtype == .accepted ? "PRICE ↑ OK" : "PRICE ↑", shape: .diamond, color: "#ad1457",
                meaning: "price increase")
        case .priceChange:
            return EventKind(label: "PRICE", shape: .diamond, color: "#ad1457", meaning: "price change")
        case .refund:
            return EventKind(label: "REFUND", shape: .cross, color: "#b71c1c", meaning: "refund")
        case .refundDeclined:
            return EventKind(label: "REFUND NO", shape: .cross, color: "#757575", meaning: "refund declined")
        case .refundReversed:
            return EventKind(label: "REFUND UNDONE", shape: .cross, color: "#2e7d32", meaning: "refund reversed")
        case .revoke:
            return EventKind(label: "REVOKE", shape: .cross, color: "#880e4f", meaning: "revoked (reason printed)")
        case .consumptionRequest:
            return EventKind(
                label: "CONSUMPTION?", shape: .hollowSquare, color: "#455a64", meaning: "consumption request")
        case .renewalExtended:
            return EventKind(label: "EXTENDED", shape: .star, color: "#2e7d32", meaning: "renewal date extended")
        case .renewalExtension:
            return EventKind(label: "EXTENSION", shape: .star, color: "#2e7d32", meaning: "mass extension")
        case .test: return EventKind(label: "TEST", shape: .circle, color: "#6a1b9a", meaning: "test")
        case .externalPurchaseToken:
            return EventKind(label: "EXT TOKEN", shape: .circle, color: "#455a64", meaning: "external purchase token")
        case .rescindConsent:
            return EventKind(label: "CONSENT OFF", shape: .circle, color: "#455a64", meaning: "consent rescinded")
        case .metadataUpdate:
            return EventKind(label: "METADATA", shape: .circle, color: "#455a64", meaning: "metadata update")
        case .migration:
            return EventKind(label: "MIGRATION", shape: .circle, color: "#455a64", meaning: "migration")
        }
    }
}
