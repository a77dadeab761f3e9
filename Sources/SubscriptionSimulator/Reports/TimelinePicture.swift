/// The `svg` format: a run's timeline as a picture (docs/scenario-format.md, "The picture"). One lane per customer
/// (a family's organizer first, its members under it), in each lane one bar per subscription or share (keyed by its
/// original transaction) drawn over virtual time and split into phases as the notifications report them (active,
/// free trial or offer, billing grace, billing retry, expired, revoked or refunded; each with its own colour, pattern
/// and label), a marker per notification with a `<title>` (type, subtype, instant, status), the access each customer
/// gained and lost (``EntitlementChange``), the family delay between a purchase and a member's share, a dated UTC axis
/// and a legend.
///
/// It reads what the run sent and never changes a rule: a phase starts where a notification reports it (or where the
/// grace period it reports ends) and lasts until the next one. It is fed in order like any sink (``add(_:_:)``) and
/// keeps only what it draws: at most ``Caps`` lanes, markers and bar pieces, so the file stays bounded however long
/// the run; what it leaves out is counted and said in a note at the bottom of the picture. Deterministic: the same
/// notifications give the same bytes.
package struct TimelinePicture {
    /// How much is drawn at most [assumed: chosen so that the file stays at about 2 MB at most and a browser draws
    /// it at once; the Tests/Scale scenario's picture is about 140 kB at any size, simbench `picture`].
    package struct Caps: Sendable {
        /// Customers drawn (lanes); the others are counted in the note.
        package var lanes = 40
        /// Bars (subscriptions or shares) drawn in one lane.
        package var barsPerLane = 4
        /// Notification markers drawn; later notifications still shape the bars.
        package var markers = 2_000
        /// Phase pieces drawn over all bars; later changes are left out (and counted).
        package var pieces = 3_000
        /// Access changes drawn.
        package var accessChanges = 2_000

        package init() {}
    }

    /// A phase a bar is drawn in.
    package enum Phase: Int, CaseIterable, Sendable {
        case active, offer, grace, retry, expired, revoked

        var name: String {
            switch self {
            case .active: return "active"
            case .offer: return "free trial / offer"
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
            case .grace: return "grace"
            case .retry: return "retry"
            case .expired: return "expired"
            case .revoked: return "revoked"
            }
        }

        /// The fill: a pattern (``TimelinePicture/patterns``) so that no phase is told by its colour alone.
        var fill: String { "url(#phase-\(label))" }
        var textColor: String { self == .expired || self == .offer || self == .grace ? "#111" : "#fff" }
    }

    struct Piece {
        var start: Instant
        var phase: Phase
        var label: String
    }

    struct Bar {
        var key: String
        var title: String
        var pieces: [Piece] = []
        /// The reported grace period's end: the bar turns to billing retry there unless a notification comes first.
        var graceEnds: Instant?
        var productId: String
        /// The shares' purchases, when they reached this member later (the family delay): purchase and arrival.
        var delays: [(purchase: Instant, arrival: Instant)] = []
        /// The last purchase (`SUBSCRIBED`, `ONE_TIME_CHARGE`) on this bar, for the family delay of the shares.
        var lastPurchase: Instant?
    }

    struct Marker {
        var instant: Instant
        var bar: Int
        var title: String
        var isApp: Bool
    }

    struct Access {
        var instant: Instant
        var gained: [String]
        var lost: [String]
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
    }

    let name: String
    let start: Instant
    let seed: UInt64
    let caps: Caps
    var lanes: [Lane] = []
    var laneIndex: [String: Int] = [:]
    let customerCount: Int
    var appMarkers: [Marker] = []
    var notificationCount = 0
    var markerCount = 0
    var pieceCount = 0
    var accessCount = 0
    // What was left out, for the note.
    var omittedNotifications = 0
    var omittedMarkers = 0
    var omittedPieces = 0
    var omittedBars = 0
    var omittedAccess = 0
    var last: Instant

    /// `customers`: every customer, in the scenario's order; `families`: organizer and members. The lanes are the
    /// families' (organizer, then members) followed by the other customers, the first ``Caps/lanes`` of them.
    package init(
        name: String, start: Instant, seed: UInt64, customers: [String], families: [(String, [String])],
        caps: Caps = Caps()
    ) {
        self.name = name
        self.start = start
        self.seed = seed
        self.caps = caps
        last = start
        customerCount = customers.count
        func addLane(_ customer: String, family: Int) {
            guard lanes.count < caps.lanes, laneIndex[customer] == nil else { return }
            laneIndex[customer] = lanes.count
            lanes.append(Lane(customer: customer, family: family))
        }
        for (organizer, members) in families {
            addLane(organizer, family: 1)
            for member in members { addLane(member, family: 2) }
        }
        for customer in customers {
            if lanes.count >= caps.lanes { break }
            addLane(customer, family: 0)
        }
    }

    /// The picture of `scenario`'s run (its customers and family).
    package init(scenario: Scenario, caps: Caps = Caps()) {
        self.init(
            name: scenario.name, start: scenario.start, seed: scenario.seed, customers: scenario.customers,
            families: scenario.family.map { [($0.organizer, $0.members)] } ?? [], caps: caps)
    }

    /// Takes what the store sent next, in order (as a ``RunSink`` is given it).
    package mutating func add(_ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>) {
        for n in notifications { add(n) }
        for c in changes { add(c) }
    }

    mutating func add(_ n: SentNotification) {
        notificationCount += 1
        if n.instant > last { last = n.instant }
        guard let recipient = n.recipient else {
            if markerCount < caps.markers {
                markerCount += 1
                appMarkers.append(Marker(instant: n.instant, bar: 0, title: Self.title(n), isApp: true))
            } else {
                omittedMarkers += 1
            }
            return
        }
        guard let l = laneIndex[recipient] else {
            omittedNotifications += 1
            return
        }
        var barIndex = -1
        if let t = n.transaction {
            let key = t.originalTransactionId
            if let found = lanes[l].bars.lastIndex(where: { $0.key == key }) {
                barIndex = found
            } else if lanes[l].bars.count < caps.barsPerLane {
                lanes[l].bars.append(
                    Bar(
                        key: key, title: t.productId + (t.ownership == .familyShared ? " (family shared)" : ""),
                        productId: t.productId))
                barIndex = lanes[l].bars.count - 1
            } else {
                omittedBars += 1
            }
            if barIndex >= 0 && (n.type == .subscribed || n.type == .oneTimeCharge) {
                if t.ownership == .familyShared {
                    noteDelay(lane: l, bar: barIndex, productId: t.productId, arrival: n.instant)
                } else {
                    lanes[l].bars[barIndex].lastPurchase = n.instant
                }
            }
            if barIndex >= 0, let (phase, label) = Self.phase(of: n) {
                setPhase(lane: l, bar: barIndex, phase, at: n.instant, label: label)
                lanes[l].bars[barIndex].graceEnds = phase == .grace ? n.renewal?.gracePeriodExpiresDate : nil
            }
        }
        if markerCount < caps.markers {
            markerCount += 1
            lanes[l].markers.append(
                Marker(instant: n.instant, bar: max(barIndex, 0), title: Self.title(n), isApp: false))
        } else {
            omittedMarkers += 1
        }
    }

    /// A share that reached a member at `arrival`: the family delay since the organizer's (the purchaser's) last
    /// purchase of the product, when there is one.
    mutating func noteDelay(lane l: Int, bar b: Int, productId: String, arrival: Instant) {
        guard lanes[l].family == 2, lanes[l].bars[b].delays.count < 4 else { return }
        var organizer = l
        while organizer > 0 && lanes[organizer].family == 2 { organizer -= 1 }
        guard lanes[organizer].family == 1,
            let purchase = lanes[organizer].bars.last(where: { $0.productId == productId })?.lastPurchase,
            purchase < arrival
        else { return }
        lanes[l].bars[b].delays.append((purchase, arrival))
    }

    mutating func setPhase(lane l: Int, bar b: Int, _ phase: Phase, at instant: Instant, label: String) {
        // A grace period that ended before this notification: billing retry from its end.
        if let ends = lanes[l].bars[b].graceEnds, ends < instant, lanes[l].bars[b].pieces.last?.phase == .grace {
            lanes[l].bars[b].graceEnds = nil
            setPhase(lane: l, bar: b, .retry, at: ends, label: Phase.retry.label)
        }
        if let current = lanes[l].bars[b].pieces.last, current.phase == phase { return }
        guard pieceCount < caps.pieces else {
            omittedPieces += 1
            return
        }
        pieceCount += 1
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
            lanes[l].accessSpans.append((change.instant, nil))
        } else if !before.isEmpty && change.products.isEmpty, let open = lanes[l].accessSpans.indices.last {
            lanes[l].accessSpans[open].end = change.instant
        }
        guard !gained.isEmpty || !lost.isEmpty else { return }
        if accessCount < caps.accessChanges {
            accessCount += 1
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
        case .nonConsumable: return (.active, "owned")
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
}

// MARK: drawing

extension TimelinePicture {
    static let width = 1000.0
    static let plotLeft = 190.0
    static let plotRight = 950.0
    static let barHeight = 14.0
    static let barStep = 26.0

    /// The whole SVG document, the run drawn up to `until` (the run's end; the server's clock).
    package func svg(until: Instant) -> String {
        let end = max(until, last)
        let span = max(Double(start.milliseconds(to: end)), 1)
        func x(_ instant: Instant) -> Double {
            Self.plotLeft + Double(start.milliseconds(to: instant)) / span * (Self.plotRight - Self.plotLeft)
        }
        let axisTop = 74.0
        var y = axisTop + 34
        // Lane geometry first: each lane's top and height.
        var tops: [Double] = []
        if !appMarkers.isEmpty { y += 30 }
        for lane in lanes {
            if lane.family == 1 { y += 18 }
            tops.append(y)
            y += Double(max(lane.bars.count, 1)) * Self.barStep + 14
        }
        let plotBottom = y
        let legendTop = plotBottom + 22
        let notes = omissionNotes()
        let height = legendTop + 86 + Double(notes.count) * 16
        var svg = SVGWriter(width: Self.width, height: height)
        svg.raw(Self.patterns)
        svg.rect(x: 0, y: 0, width: Self.width, height: height, fill: "white")
        svg.text(name, x: 16, y: 26, size: 16, bold: true)
        svg.text(
            "start \(CalendarMath.iso8601(start)) · seed \(seed) · until \(CalendarMath.iso8601(end)) · "
                + Self.count(notificationCount, "notification") + " · " + Self.count(customerCount, "customer")
                + " · times in UTC",
            x: 16, y: 46, size: 12, fill: "#444")
        // The axis: dated ticks and light lines down the plot.
        for tick in Self.ticks(from: start, to: end) {
            let tx = x(tick.instant)
            svg.line(x1: tx, y1: axisTop + 6, x2: tx, y2: plotBottom, stroke: "#e6e6e6")
            svg.line(x1: tx, y1: axisTop, x2: tx, y2: axisTop + 6, stroke: "#444")
            svg.text(tick.label, x: tx, y: axisTop - 6, size: 11, anchor: .middle, fill: "#333")
        }
        svg.line(x1: Self.plotLeft, y1: axisTop, x2: Self.plotRight, y2: axisTop, stroke: "#444")
        if !appMarkers.isEmpty {
            let my = axisTop + 34
            svg.text("(app)", x: 16, y: my + 4, size: 12, fill: "#333")
            for marker in appMarkers { drawMarker(marker, x: x(marker.instant), y: my, into: &svg) }
        }
        for (index, lane) in lanes.enumerated() {
            let top = tops[index]
            if lane.family == 1 {
                svg.text("family of \(lane.customer)", x: 16, y: top - 6, size: 11, bold: true, fill: "#555")
            }
            let labelX = lane.family == 2 ? 34.0 : 16.0
            svg.text(
                lane.customer, x: labelX, y: top + 14, size: 13, bold: lane.family == 1,
                dataLabel: lane.family == 1 ? "organizer" : lane.family == 2 ? "member" : "customer")
            if lane.family != 0 {
                svg.text(
                    lane.family == 1 ? "organizer" : "member", x: labelX, y: top + 27, size: 10, fill: "#666")
            }
            if lane.family == 2 {
                svg.line(x1: 24, y1: top, x2: 24, y2: top + 20, stroke: "#999")
                svg.line(x1: 24, y1: top + 10, x2: 30, y2: top + 10, stroke: "#999")
            }
            svg.line(
                x1: 12, y1: top + Double(max(lane.bars.count, 1)) * Self.barStep + 7, x2: Self.plotRight,
                y2: top + Double(max(lane.bars.count, 1)) * Self.barStep + 7, stroke: "#ddd")
            for (b, bar) in lane.bars.enumerated() {
                let barY = top + 8 + Double(b) * Self.barStep
                drawBar(bar, y: barY, end: end, x: x, into: &svg)
                for delay in bar.delays {
                    drawDelay(delay, lane: index, barY: barY, tops: tops, x: x, into: &svg)
                }
            }
            // Access: a thin strip under the bars while the customer has any product, a triangle where it changes.
            let accessY = top + Double(max(lane.bars.count, 1)) * Self.barStep
            for span in lane.accessSpans {
                let x1 = x(span.start)
                let x2 = x(span.end ?? end)
                svg.rect(x: x1, y: accessY, width: max(x2 - x1, 1), height: 3, fill: "#1565c0")
            }
            for change in lane.access {
                let ax = x(change.instant)
                let gained = !change.gained.isEmpty
                let points =
                    gained
                    ? "\(SVGWriter.number(ax - 4)),\(SVGWriter.number(accessY + 7)) \(SVGWriter.number(ax + 4)),\(SVGWriter.number(accessY + 7)) \(SVGWriter.number(ax)),\(SVGWriter.number(accessY))"
                    : "\(SVGWriter.number(ax - 4)),\(SVGWriter.number(accessY)) \(SVGWriter.number(ax + 4)),\(SVGWriter.number(accessY)) \(SVGWriter.number(ax)),\(SVGWriter.number(accessY + 7))"
                let text =
                    "access " + (change.gained.map { "+" + $0 } + change.lost.map { "-" + $0 }).joined(separator: " ")
                    + " · " + CalendarMath.iso8601(change.instant) + " · " + lane.customer
                svg.group(title: text) { svg in
                    svg.element(
                        "polygon",
                        [("points", points), ("fill", gained ? "#1565c0" : "#fff"), ("stroke", "#1565c0")])
                }
            }
            for marker in lane.markers {
                drawMarker(
                    marker, x: x(marker.instant), y: top + 8 + Double(marker.bar) * Self.barStep + Self.barHeight / 2,
                    into: &svg)
            }
        }
        drawLegend(top: legendTop, into: &svg)
        for (i, note) in notes.enumerated() {
            svg.text(note, x: 16, y: legendTop + 80 + Double(i) * 16, size: 12, fill: "#b71c1c")
        }
        return svg.document(title: "\(name): timeline")
    }

    func drawBar(_ bar: Bar, y: Double, end: Instant, x: (Instant) -> Double, into svg: inout SVGWriter) {
        for (p, piece) in bar.pieces.enumerated() {
            let pieceEnd =
                p + 1 < bar.pieces.count ? bar.pieces[p + 1].start : (bar.graceEnds.map { min($0, end) } ?? end)
            let x1 = x(piece.start)
            let width = max(x(pieceEnd) - x1, 1.5)
            let title =
                "\(piece.phase.name) · \(bar.title) · from \(CalendarMath.iso8601(piece.start)) to \(CalendarMath.iso8601(pieceEnd))"
            svg.group(title: title) { svg in
                svg.element(
                    "rect",
                    [
                        ("x", SVGWriter.number(x1)), ("y", SVGWriter.number(y)), ("width", SVGWriter.number(width)),
                        ("height", SVGWriter.number(Self.barHeight)), ("fill", piece.phase.fill), ("stroke", "#333"),
                        ("stroke-width", "0.5"), ("data-phase", piece.phase.label),
                    ])
                if width >= Double(piece.label.count) * 6.2 + 12 {
                    svg.text(
                        piece.label, x: x1 + 7, y: y + 11, size: 10, fill: piece.phase.textColor, halo: true)
                }
            }
            // A grace period that ran out with no notification after it: billing retry to the end.
            if p + 1 == bar.pieces.count, piece.phase == .grace, let ends = bar.graceEnds, ends < end {
                let rx = x(ends)
                svg.group(title: "\(Phase.retry.name) · \(bar.title) · from \(CalendarMath.iso8601(ends))") { svg in
                    svg.element(
                        "rect",
                        [
                            ("x", SVGWriter.number(rx)), ("y", SVGWriter.number(y)),
                            ("width", SVGWriter.number(max(x(end) - rx, 1.5))),
                            ("height", SVGWriter.number(Self.barHeight)), ("fill", Phase.retry.fill),
                            ("stroke", "#333"), ("stroke-width", "0.5"), ("data-phase", Phase.retry.label),
                        ])
                }
            }
        }
        if let first = bar.pieces.first {
            // The product, left of the bar when there is room, else inside the axis' left margin.
            let x1 = x(first.start)
            svg.text(bar.title, x: x1, y: y - 3, size: 9, fill: "#555")
        }
    }

    func drawDelay(
        _ delay: (purchase: Instant, arrival: Instant), lane: Int, barY: Double, tops: [Double],
        x: (Instant) -> Double, into svg: inout SVGWriter
    ) {
        // From the organizer's lane (the family's first) down to this bar.
        var organizer = lane
        while organizer > 0 && lanes[organizer].family == 2 { organizer -= 1 }
        let fromY = lanes[organizer].family == 1 ? tops[organizer] + 8 + Self.barHeight : barY
        let x1 = x(delay.purchase)
        let x2 = x(delay.arrival)
        let text = "family delay \(Self.duration(delay.purchase.milliseconds(to: delay.arrival)))"
        svg.group(
            title: "\(text): purchased \(CalendarMath.iso8601(delay.purchase)), "
                + "shared from \(CalendarMath.iso8601(delay.arrival))"
        ) { svg in
            svg.line(
                x1: x1, y1: fromY, x2: x2, y2: barY + Self.barHeight / 2, stroke: "#6a1b9a", width: 1.5, dash: "3 2")
            // After the bar's product label, above the bar.
            let labelX = x2 + Double(lanes[lane].bars.first?.title.count ?? 0) * 4.6 + 12
            svg.text(text, x: labelX, y: barY - 3, size: 9, bold: true, fill: "#6a1b9a")
        }
    }

    func drawMarker(_ marker: Marker, x: Double, y: Double, into svg: inout SVGWriter) {
        svg.group(title: marker.title) { svg in
            svg.circle(cx: x, cy: y, r: 3.5, fill: marker.isApp ? "#6a1b9a" : "#111", stroke: "#fff")
        }
    }

    func drawLegend(top: Double, into svg: inout SVGWriter) {
        svg.text("Legend", x: 16, y: top + 12, size: 12, bold: true)
        for (i, phase) in Phase.allCases.enumerated() {
            let lx = 16.0 + Double(i % 3) * 200
            let ly = top + 22 + Double(i / 3) * 22
            svg.element(
                "rect",
                [
                    ("x", SVGWriter.number(lx)), ("y", SVGWriter.number(ly)), ("width", "36"), ("height", "14"),
                    ("fill", phase.fill), ("stroke", "#333"), ("stroke-width", "0.5"),
                ])
            svg.text(phase.name, x: lx + 44, y: ly + 11, size: 12)
        }
        let lx = 620.0
        svg.circle(cx: lx + 6, cy: top + 29, r: 3.5, fill: "#111", stroke: "#fff")
        svg.text("notification (hover: type, subtype, time, status)", x: lx + 16, y: top + 33, size: 11)
        svg.rect(x: lx, y: top + 49, width: 12, height: 3, fill: "#1565c0")
        svg.text("has access; ▲ gained, ▽ lost", x: lx + 16, y: top + 55, size: 11)
        svg.line(x1: lx, y1: top + 66, x2: lx + 12, y2: top + 76, stroke: "#6a1b9a", width: 1.2, dash: "3 2")
        svg.text("family delay: purchase to member's share", x: lx + 16, y: top + 77, size: 11)
    }

    /// What was left out, one sentence each.
    func omissionNotes() -> [String] {
        var notes: [String] = []
        if customerCount > lanes.count {
            notes.append(
                "Not drawn: \(Self.count(customerCount - lanes.count, "more customer")) (the first \(caps.lanes) "
                    + "have lanes) and their \(Self.count(omittedNotifications, "notification")).")
        }
        if omittedBars > 0 {
            notes.append(
                "Not drawn: subscriptions beyond \(caps.barsPerLane) per customer (\(omittedBars) notifications).")
        }
        if omittedMarkers > 0 {
            notes.append(
                "Not marked: \(DecimalText.grouped(omittedMarkers)) notifications after the first "
                    + "\(DecimalText.grouped(caps.markers)).")
        }
        if omittedPieces > 0 {
            notes.append(
                "Not drawn: \(DecimalText.grouped(omittedPieces)) phase changes after the first "
                    + "\(DecimalText.grouped(caps.pieces)).")
        }
        if omittedAccess > 0 {
            notes.append(
                "Not marked: \(DecimalText.grouped(omittedAccess)) access changes after the first "
                    + "\(DecimalText.grouped(caps.accessChanges)).")
        }
        return notes
    }

    /// `1 customer`, `1,200 customers`.
    static func count(_ n: Int, _ noun: String) -> String { "\(DecimalText.grouped(n)) \(noun)\(n == 1 ? "" : "s")" }

    /// `1h`, `2d 3h`: a duration for labels.
    static func duration(_ ms: Int64) -> String {
        var rest = ms
        var parts: [String] = []
        for (size, unit) in [(Int64(86_400_000), "d"), (3_600_000, "h"), (60_000, "m"), (1000, "s")] where rest >= size
        {
            parts.append("\(rest / size)\(unit)")
            rest %= size
        }
        return parts.isEmpty ? "\(ms)ms" : parts.prefix(2).joined(separator: " ")
    }

    /// Dated ticks for the axis, about 6 to 13 of them: whole months (1, 2, 3, 6, 12) or fixed steps from a minute
    /// to two weeks, aligned to UTC.
    static func ticks(from start: Instant, to end: Instant) -> [(instant: Instant, label: String)] {
        let span = start.milliseconds(to: end)
        let day: Int64 = 86_400_000
        let c = CalendarMath.components(of: start)
        var ticks: [(Instant, String)] = []
        if span > 70 * day {
            let months = [1, 2, 3, 6, 12, 24, 60, 120].first { Int64($0) * 30 * day * 12 >= span } ?? 240
            var year = c.year
            var month = c.month
            // The first whole step at or after the start.
            var index = (year * 12 + month - 1)
            if c.day != 1 || c.hour != 0 || c.minute != 0 || c.second != 0 || c.millisecond != 0 { index += 1 }
            index = (index + months - 1) / months * months
            while true {
                year = index / 12
                month = index % 12 + 1
                let instant = CalendarMath.instant(year: year, month: month, day: 1)
                if instant > end || ticks.count > 40 { break }
                ticks.append((instant, pad(year, 4) + "-" + pad(month, 2) + "-01"))
                index += months
            }
            return ticks
        }
        let steps: [Int64] = [
            60_000, 5 * 60_000, 15 * 60_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000, day, 2 * day,
            7 * day, 14 * day,
        ]
        let step = steps.first { $0 * 8 >= span } ?? 14 * day
        let startMs = start.millisecondsSince1970
        var t = (startMs + step - 1) / step * step
        if startMs < 0 { t = startMs / step * step }
        var previousDay: Int?
        while t <= end.millisecondsSince1970 && ticks.count <= 40 {
            let instant = Instant(millisecondsSince1970: t)
            let k = CalendarMath.components(of: instant)
            let date = pad(k.year, 4) + "-" + pad(k.month, 2) + "-" + pad(k.day, 2)
            var label = date
            if step < day {
                // The time of day; the date too where the day changes (and on the first tick).
                let time = pad(k.hour, 2) + ":" + pad(k.minute, 2)
                label = previousDay == k.day ? time : date + " " + time
            }
            previousDay = k.day
            ticks.append((instant, label))
            t += step
        }
        return ticks
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// One pattern per phase: a colour and a texture, so the phases differ in grey and for colour-blind readers.
    static let patterns = """
        <defs>
        <pattern id="phase-active" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" \
        fill="#2e7d32"/></pattern>
        <pattern id="phase-offer" width="8" height="8" patternUnits="userSpaceOnUse" \
        patternTransform="rotate(45)"><rect width="8" height="8" fill="#a5d6a7"/><rect width="3" height="8" \
        fill="#2e7d32"/></pattern>
        <pattern id="phase-grace" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" \
        fill="#ffd54f"/><circle cx="3" cy="3" r="1.2" fill="#8d6e00"/></pattern>
        <pattern id="phase-retry" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" \
        fill="#ef6c00"/><rect width="6" height="2" fill="#8a3d00"/></pattern>
        <pattern id="phase-expired" width="8" height="8" patternUnits="userSpaceOnUse" \
        patternTransform="rotate(-45)"><rect width="8" height="8" fill="#eeeeee"/><rect width="1.5" height="8" \
        fill="#9e9e9e"/></pattern>
        <pattern id="phase-revoked" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" \
        fill="#c62828"/><path d="M0 0L8 8M8 0L0 8" stroke="#ffcdd2" stroke-width="1"/></pattern>
        </defs>
        """
}
