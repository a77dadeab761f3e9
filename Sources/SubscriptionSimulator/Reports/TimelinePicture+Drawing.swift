// The drawing of ``TimelinePicture``: geometry, the order of the lanes, text laid out with ``TextPlacer`` so that no
// two texts overlap and none leaves the canvas (a label that finds no free place is left out and counted; the mark
// and its hover title stay).

extension TimelinePicture {
    static let width = 1000.0
    static let plotLeft = 200.0
    static let plotRight = 920.0
    static let barHeight = 14.0
    /// One bar's row: a label line, the bar, two label lines.
    static let rowHeight = 60.0
    /// The smallest text drawn.
    static let small = 11.0

    /// A unit of lanes drawn together: a family's lanes, or one lane standing for `count` identical customers.
    struct Unit {
        var lanes: [Int]
        var count: Int
        var names: [String]
        var events: Int
    }

    /// The lanes drawn, in order: the scenario's order when everyone fits, else identical lanes collapsed and the
    /// most eventful first; at most ``Caps/lanes`` lanes.
    func chosenUnits() -> (units: [Unit], collapsed: Int) {
        var units: [Unit] = []
        let family = lanes.indices.filter { lanes[$0].family != 0 }
        if !family.isEmpty {
            units.append(
                Unit(
                    lanes: family, count: 1, names: family.map { lanes[$0].customer },
                    events: family.reduce(0) { $0 + lanes[$1].events }))
        }
        let singles = lanes.indices.filter { lanes[$0].family == 0 }
        let fits = lanes.count <= caps.lanes && customerCount == lanes.count
        var collapsed = 0
        if fits {
            units += singles.map { Unit(lanes: [$0], count: 1, names: [lanes[$0].customer], events: lanes[$0].events) }
            return (units, 0)
        }
        var bySignature: [String: Int] = [:]
        var groups: [Unit] = []
        for l in singles {
            let signature = self.signature(lanes[l])
            if let g = bySignature[signature] {
                groups[g].count += 1
                if groups[g].names.count < 12 { groups[g].names.append(lanes[l].customer) }
                collapsed += 1
            } else {
                bySignature[signature] = groups.count
                groups.append(Unit(lanes: [l], count: 1, names: [lanes[l].customer], events: lanes[l].events))
            }
        }
        units += groups
        // Most eventful first (for a collapsed lane: one customer's events); ties keep the scenario's order.
        let ordered = units.enumerated().sorted {
            $0.element.events != $1.element.events ? $0.element.events > $1.element.events : $0.offset < $1.offset
        }.map(\.element)
        var chosen: [Unit] = []
        var count = 0
        for unit in ordered {
            if count + unit.lanes.count > caps.lanes { continue }
            chosen.append(unit)
            count += unit.lanes.count
        }
        return (chosen, collapsed)
    }

    /// What a lane draws, without its customer's name: equal for lanes that would look the same.
    func signature(_ lane: Lane) -> String {
        var text = ""
        for bar in lane.bars {
            text += "|" + bar.productId
            for s in bar.segments {
                text += ",\(s.start.millisecondsSince1970)\(s.productId)\(s.price?.milliunits ?? -1)"
            }
            for p in bar.pieces { text += ";\(p.start.millisecondsSince1970)\(p.phase.rawValue)\(p.label)" }
            for o in bar.autoRenewOff { text += "o\(o.from.millisecondsSince1970)" }
            if let g = bar.graceEnds { text += "g\(g.millisecondsSince1970)" }
        }
        for m in lane.markers { text += "m\(m.instant.millisecondsSince1970)\(m.bar)\(m.label)" }
        for a in lane.access { text += "a\(a.instant.millisecondsSince1970)\(a.gained)\(a.lost)" }
        text += "e\(lane.events)"
        return text
    }

    /// The whole SVG document, the run drawn up to `until` (the run's end; the server's clock). `now`: the server's
    /// clock, said in the header and drawn as a line.
    package func svg(until: Instant, now: Instant? = nil) -> String {
        var picture = self
        picture.applyActions(through: max(until, last))
        return picture.draw(until: until, now: now)
    }

    func draw(until: Instant, now: Instant?) -> String {
        let end = max(until, last)
        let from = view.from ?? start
        let to = max(view.to ?? end, from.adding(milliseconds: 1))
        let span = Double(from.milliseconds(to: to))
        func x(_ instant: Instant) -> Double {
            let t = Double(from.milliseconds(to: instant)) / span
            return Self.plotLeft + min(max(t, 0), 1) * (Self.plotRight - Self.plotLeft)
        }
        func inWindow(_ instant: Instant) -> Bool { instant >= from && instant <= to }
        var svg = Painter(width: Self.width)
        svg.raw(Self.patterns)
        let background = svg.writer.body.count
        // Header.
        svg.put(Self.fit(name, size: 16, bold: true, width: Self.width - 32), size: 16, bold: true, [(16, 26, .start)])
        let clock = now.map { "now \(CalendarMath.iso8601($0))" } ?? "until \(CalendarMath.iso8601(end))"
        svg.put(
            Self.fit(
                "start \(CalendarMath.iso8601(start)) · seed \(seed) · \(clock) · "
                    + Self.count(notificationCount, "notification") + " · " + Self.count(customerCount, "customer")
                    + " · times in UTC", size: 12, width: Self.width - 32), size: 12, fill: "#444", [(16, 46, .start)])
        var y = 56.0
        if view.from != nil || view.to != nil {
            svg.put(
                "window \(CalendarMath.iso8601(from)) to \(CalendarMath.iso8601(to))", size: 12, fill: "#444",
                [(16, 64, .start)])
            y = 72
        }
        let (units, collapsed) = chosenUnits()
        let drawnLanes = units.reduce(0) { $0 + $1.lanes.count }
        let drawnCustomers = units.reduce(0) { $0 + ($1.lanes.count > 1 ? $1.lanes.count : $1.count) }
        // The phase strip, when not every customer has a lane of their own.
        let strip = customerCount > drawnLanes
        if strip {
            y = drawStrip(top: y + 8, from: from, to: to, x: x, into: &svg)
        }
        let axisTop = y + 28
        // The axis: the start labelled, then ticks on calendar boundaries (or offsets), light lines down the plot.
        svg.line(x1: Self.plotLeft, y1: axisTop, x2: Self.plotRight, y2: axisTop, stroke: "#444")
        var tickXs: [Double] = []
        let startLabel = view.axis == .offsets ? "+0 (\(Self.shortDate(from)))" : Self.shortDateTime(from)
        svg.put(startLabel, size: Self.small, bold: true, fill: "#333", [(Self.plotLeft, axisTop - 6, .start)])
        svg.line(x1: Self.plotLeft, y1: axisTop - 4, x2: Self.plotLeft, y2: axisTop + 6, stroke: "#444", width: 2)
        for tick in Self.ticks(from: from, to: to, axis: view.axis, start: start) where tick.instant > from {
            let tx = x(tick.instant)
            tickXs.append(tx)
            svg.line(x1: tx, y1: axisTop, x2: tx, y2: axisTop + 6, stroke: "#444")
            svg.put(tick.label, size: Self.small, fill: "#333", [(tx, axisTop - 6, .middle)])
        }
        var laneY = axisTop + 16
        if !appMarkers.isEmpty { laneY += 34 }
        // Lane geometry: each drawn lane's top.
        var placed: [(lane: Int, top: Double, unit: Int)] = []
        var familyTop: Double?
        var familyBottom = 0.0
        for (u, unit) in units.enumerated() {
            for l in unit.lanes {
                if lanes[l].family == 1 {
                    laneY += 22
                    familyTop = laneY - 22
                }
                placed.append((l, laneY, u))
                laneY += Double(max(lanes[l].bars.count, 1)) * Self.rowHeight + 10
                if lanes[l].family != 0 { familyBottom = laneY }
            }
        }
        let plotBottom = laneY
        // Grid lines first (under everything).
        for tx in tickXs { svg.line(x1: tx, y1: axisTop + 6, x2: tx, y2: plotBottom, stroke: "#e6e6e6") }
        if let now, inWindow(now) {
            let nx = x(now)
            svg.line(x1: nx, y1: axisTop - 2, x2: nx, y2: plotBottom, stroke: "#d50000", width: 1.5)
            svg.put(
                "now", size: Self.small, bold: true, fill: "#d50000",
                [(nx + 4, axisTop + 14, .start), (nx - 4, axisTop + 14, .end)])
        }
        if !appMarkers.isEmpty {
            let my = axisTop + 30
            svg.put("(app)", size: 12, fill: "#333", [(16, my + 4, .start)])
            drawMarkers(appMarkers, rowTop: my - 22, x: x, inWindow: inWindow, into: &svg)
        }
        if let familyTop, let organizer = placed.first(where: { lanes[$0.lane].family == 1 }) {
            svg.line(x1: 9, y1: familyTop + 6, x2: 9, y2: familyBottom - 4, stroke: "#6a1b9a", width: 2)
            svg.put(
                Self.fit("family of \(lanes[organizer.lane].customer)", size: Self.small, bold: true, width: 180),
                size: Self.small, bold: true, fill: "#6a1b9a", [(16, familyTop + 14, .start)])
        }
        for (l, top, u) in placed {
            let lane = lanes[l]
            let rows = Double(max(lane.bars.count, 1))
            let bottom = top + rows * Self.rowHeight
            // Membership: a light band while a member belongs to the family.
            if lane.family == 2 {
                for span in lane.membership {
                    let x1 = x(span.from)
                    let x2 = x(span.to ?? to)
                    if x2 > x1 {
                        svg.group(
                            title: "\(lane.customer) in the family from \(CalendarMath.iso8601(span.from))"
                                + (span.to.map { " to \(CalendarMath.iso8601($0))" } ?? ""),
                            data: [("membership", lane.customer)]
                        ) { svg in
                            svg.rect(
                                x: x1, y: top + 2, width: x2 - x1, height: rows * Self.rowHeight - 2, fill: "#f6eefa")
                        }
                    }
                }
            }
            let labelX = lane.family == 2 ? 30.0 : 16.0
            let unit = units[u]
            svg.put(
                Self.fit(lane.customer, size: 13, bold: lane.family == 1, width: Self.plotLeft - labelX - 10), size: 13,
                bold: lane.family == 1,
                data: [("lane", lane.family == 1 ? "organizer" : lane.family == 2 ? "member" : "customer")],
                [(labelX, top + 24, .start)])
            if lane.family == 2 {
                svg.line(x1: 20, y1: top + 6, x2: 20, y2: top + 20, stroke: "#6a1b9a")
                svg.line(x1: 20, y1: top + 20, x2: 26, y2: top + 20, stroke: "#6a1b9a")
            }
            let left = lane.membership.last.map { $0.to != nil } ?? false
            let joined = lane.familyMarks.contains { $0.label == "JOINED" }
            let role =
                lane.family == 1
                ? "organizer"
                : lane.family == 2 ? (left ? "left the family" : joined ? "member (joined)" : "member") : nil
            if let role { svg.put(role, size: Self.small, fill: "#555", [(labelX, top + 39, .start)]) }
            if unit.lanes.count == 1 && unit.count > 1 {
                let others = unit.count - 1
                let text = "+\(DecimalText.grouped(others)) alike"
                svg.group(
                    title: "\(DecimalText.grouped(unit.count)) customers with this same timeline: "
                        + unit.names.joined(separator: ", ") + (unit.count > unit.names.count ? ", ..." : "")
                ) { svg in
                    if let p = svg.placer.place(text, size: Self.small, bold: true, [(labelX, top + 53, .start)]) {
                        svg.text(
                            text, x: p.x, y: p.y, size: Self.small, bold: true, fill: "#0d47a1",
                            data: [("alike", String(unit.count))])
                    } else {
                        svg.leftOut += 1
                    }
                }
            }
            svg.line(x1: 12, y1: bottom + 8, x2: Self.plotRight, y2: bottom + 8, stroke: "#ddd")
            for (b, bar) in lane.bars.enumerated() {
                let rowTop = top + Double(b) * Self.rowHeight
                drawBar(bar, rowTop: rowTop, end: to, x: x, inWindow: inWindow, into: &svg)
                for delay in bar.delays where inWindow(delay.arrival) {
                    drawDelay(delay, member: lane.customer, rowTop: rowTop, x: x, into: &svg)
                }
                drawMarkers(
                    lane.markers.filter { $0.bar == b }, rowTop: rowTop, x: x, inWindow: inWindow, into: &svg)
            }
            if lane.bars.isEmpty {
                drawMarkers(lane.markers, rowTop: top, x: x, inWindow: inWindow, into: &svg)
            }
            for mark in lane.familyMarks where inWindow(mark.instant) {
                drawFamilyMark(mark, top: top, bottom: bottom, x: x, into: &svg)
            }
            // Access: a thin strip under the bars while the customer has any product, a triangle where it changes.
            let accessY = bottom + 1
            for span in lane.accessSpans {
                let x1 = x(span.start)
                let x2 = x(span.end ?? to)
                if x2 > x1 || inWindow(span.start) {
                    svg.rect(x: x1, y: accessY, width: max(x2 - x1, 1), height: 3, fill: "#1565c0")
                }
            }
            for change in lane.access where inWindow(change.instant) {
                let ax = x(change.instant)
                let gained = !change.gained.isEmpty
                let n = SVGWriter.number
                let points =
                    gained
                    ? "\(n(ax - 4)),\(n(accessY + 7)) \(n(ax + 4)),\(n(accessY + 7)) \(n(ax)),\(n(accessY))"
                    : "\(n(ax - 4)),\(n(accessY)) \(n(ax + 4)),\(n(accessY)) \(n(ax)),\(n(accessY + 7))"
                let text =
                    "access " + (change.gained.map { "+" + $0 } + change.lost.map { "-" + $0 }).joined(separator: " ")
                    + " · " + CalendarMath.iso8601(change.instant) + " · " + lane.customer
                svg.group(title: text) { svg in
                    svg.element(
                        "polygon",
                        [("points", points), ("fill", gained ? "#1565c0" : "#fff"), ("stroke", "#1565c0")])
                }
            }
        }
        var legendY = plotBottom + 24
        legendY = drawLegend(top: legendY, strip: strip, now: now != nil, into: &svg)
        var notes = omissionNotes(drawnLanes: drawnLanes, drawnCustomers: drawnCustomers, collapsed: collapsed)
        if svg.leftOut > 0 {
            notes.append(
                "\(Self.count(svg.leftOut, "label")) left out where \(svg.leftOut == 1 ? "it" : "they") would overlap others "
                    + "(the marks stay; hover them).")
        }
        for note in notes {
            legendY += 17
            svg.put(
                Self.fit(note, size: 12, width: Self.width - 32), size: 12, fill: "#b71c1c", [(16, legendY, .start)])
        }
        let height = legendY + 16
        svg.writer.height = height
        svg.writer.body.insert(
            "<rect x=\"0\" y=\"0\" width=\"\(SVGWriter.number(Self.width))\" height=\"\(SVGWriter.number(height))\" "
                + "fill=\"white\"/>", at: background)
        return svg.writer.document(title: "\(name): timeline")
    }

    /// The number of customers in each phase over the window, stacked; returns the strip's bottom.
    func drawStrip(
        top: Double, from: Instant, to: Instant, x: (Instant) -> Double, into svg: inout Painter
    ) -> Double {
        let height = 60.0
        let bins = 144
        let span = from.milliseconds(to: to)
        let phases = Phase.allCases.sorted { $0.rank < $1.rank }
        // Counts at each bin's start: every change in a bucket up to it.
        let buckets = phaseDeltas.keys.sorted()
        var running = [Int](repeating: 0, count: Phase.allCases.count)
        var next = 0
        var counts: [[Int]] = []
        for i in 0...bins {
            let t = from.adding(milliseconds: span * Int64(i) / Int64(bins))
            let bucket = max(0, start.milliseconds(to: t)) / Self.bucket
            while next < buckets.count && buckets[next] <= bucket {
                for (p, d) in phaseDeltas[buckets[next]]!.enumerated() { running[p] += Int(d) }
                next += 1
            }
            counts.append(running)
        }
        let most = max(1, counts.map { $0.reduce(0, +) }.max() ?? 1)
        let bottom = top + height
        func px(_ i: Int) -> Double { Self.plotLeft + Double(i) / Double(bins) * (Self.plotRight - Self.plotLeft) }
        var below = [Double](repeating: 0, count: bins + 1)
        for phase in phases {
            let above = (0...bins).map { below[$0] + Double(counts[$0][phase.rawValue]) }
            guard above != below else { continue }
            var points: [String] = []
            for i in 0...bins {
                points.append(
                    "\(SVGWriter.number(px(i))),\(SVGWriter.number(bottom - above[i] / Double(most) * height))")
            }
            for i in stride(from: bins, through: 0, by: -1) {
                points.append(
                    "\(SVGWriter.number(px(i))),\(SVGWriter.number(bottom - below[i] / Double(most) * height))")
            }
            let peak = (0...bins).map { counts[$0][phase.rawValue] }.max() ?? 0
            svg.group(
                title: "\(phase.name): up to \(DecimalText.grouped(peak)) customers", data: [("strip", phase.label)]
            ) { svg in
                svg.element(
                    "polygon",
                    [
                        ("points", points.joined(separator: " ")), ("fill", phase.fill), ("stroke", "#333"),
                        ("stroke-width", "0.3"),
                    ])
            }
            below = above
        }
        svg.line(x1: Self.plotLeft, y1: bottom, x2: Self.plotRight, y2: bottom, stroke: "#444")
        svg.put("customers by phase", Self.small, true, "#333", false, [], [(16, top + 14, .start)])
        svg.put(
            "(\(DecimalText.grouped(customerCount)) in all)", Self.small, false, "#555", false, [],
            [(16, top + 29, .start)])
        svg.put(DecimalText.grouped(most), Self.small, false, "#555", false, [], [(Self.plotLeft - 6, top + 9, .end)])
        svg.put("0", Self.small, false, "#555", false, [], [(Self.plotLeft - 6, bottom, .end)])
        return bottom + 4
    }

    func drawBar(
        _ bar: Bar, rowTop: Double, end: Instant, x: (Instant) -> Double, inWindow: (Instant) -> Bool,
        into svg: inout Painter
    ) {
        let y = rowTop + 15
        let productTitle = bar.productId + (bar.shared ? " (family shared)" : "")
        for (p, piece) in bar.pieces.enumerated() {
            let pieceEnd =
                p + 1 < bar.pieces.count ? bar.pieces[p + 1].start : (bar.graceEnds.map { min($0, end) } ?? end)
            guard pieceEnd >= (view.from ?? start) || p + 1 == bar.pieces.count, piece.start <= end else { continue }
            let x1 = x(piece.start)
            let width = max(x(pieceEnd) - x1, 1.5)
            let title =
                "\(piece.phase.name) · \(productTitle) · from \(CalendarMath.iso8601(piece.start)) to \(CalendarMath.iso8601(pieceEnd))"
            svg.group(title: title) { svg in
                svg.element(
                    "rect",
                    [
                        ("x", SVGWriter.number(x1)), ("y", SVGWriter.number(y)), ("width", SVGWriter.number(width)),
                        ("height", SVGWriter.number(Self.barHeight)), ("fill", piece.phase.fill), ("stroke", "#333"),
                        ("stroke-width", "0.5"), ("data-phase", piece.phase.label),
                    ])
            }
            // Clear of a marker at the piece's start.
            if width >= TextMetrics.width(piece.label, size: Self.small) + 18 {
                svg.put(piece.label, Self.small, false, piece.phase.textColor, true, [], [(x1 + 10, y + 11, .start)])
            }
            // A grace period that ran out with no notification after it: billing retry to the end.
            if p + 1 == bar.pieces.count, piece.phase == .grace, let ends = bar.graceEnds, ends < end {
                let rx = x(ends)
                svg.group(title: "\(Phase.retry.name) · \(productTitle) · from \(CalendarMath.iso8601(ends))") { svg in
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
        // The parts: a boundary at each product, plan or price change, each part named (price where it changed).
        for (s, segment) in bar.segments.enumerated() {
            let sx = x(segment.start)
            let previous = s > 0 ? bar.segments[s - 1] : nil
            var label = Self.shortName(segment.productId)
            if segment.plan == .monthly { label += " monthly plan" }
            if let price = segment.price,
                previous == nil || previous?.price != price || previous?.productId != segment.productId
            {
                label += " " + price.description
            }
            if bar.shared { label += " · shared" }
            let segmentEnd = s + 1 < bar.segments.count ? bar.segments[s + 1].start : end
            guard segmentEnd >= (view.from ?? start), segment.start <= end else { continue }
            let title =
                "\(segment.productId)\(segment.plan == .monthly ? " (billed monthly, 12-month commitment)" : "")"
                + (segment.price.map { " · price \($0)" } ?? "") + " · from \(CalendarMath.iso8601(segment.start))"
            svg.group(title: title, data: [("segment", segment.productId)]) { svg in
                if s > 0 {
                    svg.line(x1: sx, y1: y - 3, x2: sx, y2: y + Self.barHeight + 3, stroke: "#000", width: 2.5)
                }
            }
            let lx = max(sx, Self.plotLeft)
            svg.put(
                label, Self.small, false, "#333", false, [],
                [
                    (lx + 3, rowTop + 11, .start), (lx - 3, rowTop + 11, .end), (lx + 3, rowTop + 55, .start),
                    (lx - 3, rowTop + 55, .end),
                ])
        }
        // Auto-renew off: a dashed line over the bar and when it ends.
        for off in bar.autoRenewOff {
            let x1 = x(off.from)
            let x2 = x(off.to ?? end)
            let text = "cancels on " + (off.cancelsOn.map { Self.shortDate($0) } ?? "its renewal date")
            svg.group(
                title: "auto-renew off from \(CalendarMath.iso8601(off.from))"
                    + (off.to.map { " to \(CalendarMath.iso8601($0))" } ?? "")
                    + (off.cancelsOn.map { " · cancels on \(CalendarMath.iso8601($0))" } ?? ""),
                data: [("autorenew", "off")]
            ) { svg in
                svg.line(x1: x1, y1: y - 2, x2: max(x2, x1 + 2), y2: y - 2, stroke: "#0d47a1", width: 2, dash: "4 2")
            }
            if off.to == nil || (off.to.map { $0 > off.from } ?? false) {
                svg.put(
                    text, Self.small, false, "#0d47a1", false, [],
                    [(x1 + 3, rowTop + 11, .start), (x2 - 3, rowTop + 11, .end), (x1 + 3, rowTop + 55, .start)])
            }
        }
    }

    /// The family delay at the member's bar: a bracket from the event that started the share to its arrival, and
    /// its length ("+1h"), kept inside the canvas at any scale.
    func drawDelay(
        _ delay: (start: Instant, arrival: Instant), member: String, rowTop: Double, x: (Instant) -> Double,
        into svg: inout Painter
    ) {
        let x1 = x(delay.start)
        let x2 = max(x(delay.arrival), x1 + 3)
        let y = rowTop + 13
        let ms = delay.start.milliseconds(to: delay.arrival)
        let text = "+" + Self.duration(ms)
        svg.group(
            title: "family delay \(Self.duration(ms)) (configured \(familyDelayText)): share started "
                + "\(CalendarMath.iso8601(delay.start)), reached \(member) \(CalendarMath.iso8601(delay.arrival))",
            data: [("delay", member)]
        ) { svg in
            svg.line(x1: x1, y1: y, x2: x2, y2: y, stroke: "#6a1b9a", width: 2)
            svg.line(x1: x1, y1: y - 4, x2: x1, y2: y + 2, stroke: "#6a1b9a", width: 1.5)
            svg.line(x1: x2, y1: y - 4, x2: x2, y2: y + 2, stroke: "#6a1b9a", width: 1.5)
        }
        svg.put(
            text, Self.small, true, "#6a1b9a", false, [("delay", member)],
            [(x2 + 3, rowTop + 10, .start), (x1 - 3, rowTop + 10, .end), (x2 + 3, rowTop + 55, .start)])
    }

    func drawFamilyMark(
        _ mark: FamilyMark, top: Double, bottom: Double, x: (Instant) -> Double, into svg: inout Painter
    ) {
        let mx = x(mark.instant)
        svg.group(title: mark.title, data: [("family", mark.label)]) { svg in
            if let started = mark.cancelledFrom {
                let x1 = x(started)
                let y = top + 13
                svg.line(x1: x1, y1: y, x2: max(mx, x1 + 3), y2: y, stroke: "#6a1b9a", width: 2, dash: "2 2")
                svg.line(x1: mx - 4, y1: y - 4, x2: mx + 4, y2: y + 4, stroke: "#b71c1c", width: 2)
                svg.line(x1: mx - 4, y1: y + 4, x2: mx + 4, y2: y - 4, stroke: "#b71c1c", width: 2)
            } else {
                svg.line(x1: mx, y1: top + 2, x2: mx, y2: bottom, stroke: "#6a1b9a", width: 2)
            }
        }
        let label = mark.cancelledFrom != nil ? "\(familyDelayText) share cancelled" : mark.label
        svg.put(
            label, Self.small, true, mark.cancelledFrom != nil ? "#b71c1c" : "#6a1b9a", false, [("family", mark.label)],
            [
                (mx + 4, top + 11, .start), (mx - 4, top + 11, .end), (mx + 4, top + 55, .start),
                (mx - 4, top + 55, .end),
            ])
    }

    /// Markers of one bar's row: the shape at the bar's middle (fanned where they fall together, never merged),
    /// the printed label under or over the bar where there is room, the hover title.
    func drawMarkers(
        _ markers: [Marker], rowTop: Double, x: (Instant) -> Double, inWindow: (Instant) -> Bool,
        into svg: inout Painter
    ) {
        let cy = rowTop + 15 + Self.barHeight / 2
        var previous = -Double.infinity
        for marker in markers where inWindow(marker.instant) {
            var mx = x(marker.instant)
            if marker.kind.shape != .tick {
                if mx < previous + 9 { mx = previous + 9 }
                previous = mx
            }
            svg.group(title: marker.title, data: [("kind", marker.kind.label.isEmpty ? "renewal" : marker.kind.label)])
            { svg in
                Self.shape(marker.kind, x: mx, y: cy, into: &svg)
            }
            if !marker.label.isEmpty {
                svg.put(
                    marker.label, Self.small, false, marker.kind.color, false, [("event", marker.kind.label)],
                    [
                        (mx + 5, rowTop + 42, .start), (mx - 5, rowTop + 42, .end), (mx + 5, rowTop + 55, .start),
                        (mx - 5, rowTop + 55, .end), (mx + 5, rowTop + 11, .start), (mx - 5, rowTop + 11, .end),
                    ])
            }
        }
    }

    static func shape(_ kind: EventKind, x: Double, y: Double, into svg: inout Painter) {
        let n = SVGWriter.number
        func path(_ d: String, fill: String, stroke: String = "#fff", width: Double = 1) {
            svg.element(
                "path", [("d", d), ("fill", fill), ("stroke", stroke), ("stroke-width", SVGWriter.number(width))])
        }
        let c = kind.color
        switch kind.shape {
        case .tick:
            svg.line(x1: x, y1: y - 9, x2: x, y2: y + 9, stroke: c, width: 1.2)
        case .up: path("M\(n(x)) \(n(y - 6))L\(n(x + 6)) \(n(y + 5))L\(n(x - 6)) \(n(y + 5))Z", fill: c)
        case .down: path("M\(n(x - 6)) \(n(y - 5))L\(n(x + 6)) \(n(y - 5))L\(n(x)) \(n(y + 6))Z", fill: c)
        case .cross:
            let d = "M\(n(x - 5)) \(n(y - 5))L\(n(x + 5)) \(n(y + 5))M\(n(x + 5)) \(n(y - 5))L\(n(x - 5)) \(n(y + 5))"
            path(d, fill: "none", stroke: "#fff", width: 5)
            path(d, fill: "none", stroke: c, width: 2.5)
        case .diamond:
            path("M\(n(x)) \(n(y - 6))L\(n(x + 6)) \(n(y))L\(n(x)) \(n(y + 6))L\(n(x - 6)) \(n(y))Z", fill: c)
        case .square: path("M\(n(x - 5)) \(n(y - 5))h10v10h-10Z", fill: c)
        case .hollowSquare: path("M\(n(x - 4.5)) \(n(y - 4.5))h9v9h-9Z", fill: "#fff", stroke: c, width: 2)
        case .arrow: path("M\(n(x - 5)) \(n(y - 6))L\(n(x + 6)) \(n(y))L\(n(x - 5)) \(n(y + 6))Z", fill: c)
        case .star:
            path(
                "M\(n(x)) \(n(y - 7))L\(n(x + 2)) \(n(y - 2))L\(n(x + 7)) \(n(y))L\(n(x + 2)) \(n(y + 2))L\(n(x)) \(n(y + 7))"
                    + "L\(n(x - 2)) \(n(y + 2))L\(n(x - 7)) \(n(y))L\(n(x - 2)) \(n(y - 2))Z", fill: c)
        case .circle: svg.circle(cx: x, cy: y, r: 4.5, fill: c, stroke: "#fff")
        case .hollowCircle:
            svg.element(
                "circle",
                [("cx", n(x)), ("cy", n(y)), ("r", "4.5"), ("fill", "#fff"), ("stroke", c), ("stroke-width", "2")])
        }
    }

    /// The legend: every phase, every kind of mark drawn, the other marks; flowed over the width. Returns its bottom.
    func drawLegend(
        top: Double, strip: Bool, now: Bool, into svg: inout Painter
    ) -> Double {
        var items: [(draw: (inout Painter, Double, Double) -> Void, text: String)] = []
        for phase in Phase.allCases {
            items.append(
                (
                    { svg, x, y in
                        svg.element(
                            "rect",
                            [
                                ("x", SVGWriter.number(x)), ("y", SVGWriter.number(y - 10)), ("width", "30"),
                                ("height", "14"), ("fill", phase.fill), ("stroke", "#333"), ("stroke-width", "0.5"),
                            ])
                    }, phase.name
                ))
        }
        // The kinds of marks this picture draws, one entry per meaning.
        var seen: Set<String> = []
        var kinds: [EventKind] = []
        for marker in appMarkers + lanes.flatMap(\.markers) where seen.insert(marker.kind.meaning).inserted {
            kinds.append(marker.kind)
        }
        for kind in kinds {
            let text = kind.label.isEmpty ? kind.meaning : "\(kind.label): \(kind.meaning)"
            items.append(({ svg, x, y in Self.shape(kind, x: x + 15, y: y - 3, into: &svg) }, text))
        }
        items.append(
            (
                { svg, x, y in svg.rect(x: x, y: y - 4, width: 30, height: 3, fill: "#1565c0") },
                "has access; ▲ gained, ▽ lost"
            ))
        if lanes.contains(where: { $0.bars.contains { $0.segments.count > 1 } }) {
            items.append(
                (
                    { svg, x, y in
                        svg.rect(x: x, y: y - 10, width: 30, height: 14, fill: Phase.active.fill)
                        svg.line(x1: x + 15, y1: y - 13, x2: x + 15, y2: y + 7, stroke: "#000", width: 2.5)
                    }, "product, plan or price change"
                ))
        }
        if lanes.contains(where: { $0.bars.contains { !$0.autoRenewOff.isEmpty } }) {
            items.append(
                (
                    { svg, x, y in
                        svg.line(x1: x, y1: y - 4, x2: x + 30, y2: y - 4, stroke: "#0d47a1", width: 2, dash: "4 2")
                    },
                    "auto-renew off (cancels on the date printed)"
                ))
        }
        if lanes.contains(where: { $0.bars.contains { !$0.delays.isEmpty } }) {
            items.append(
                (
                    { svg, x, y in
                        svg.line(x1: x, y1: y - 4, x2: x + 30, y2: y - 4, stroke: "#6a1b9a", width: 2)
                        svg.line(x1: x, y1: y - 8, x2: x, y2: y - 2, stroke: "#6a1b9a", width: 1.5)
                        svg.line(x1: x + 30, y1: y - 8, x2: x + 30, y2: y - 2, stroke: "#6a1b9a", width: 1.5)
                    }, "family delay (\(familyDelayText) configured) from the event that started the share"
                ))
        }
        if lanes.contains(where: { $0.family == 2 }) {
            items.append(
                (
                    { svg, x, y in svg.rect(x: x, y: y - 10, width: 30, height: 14, fill: "#f6eefa", stroke: "#6a1b9a")
                    },
                    "member of the family"
                ))
        }
        if lanes.contains(where: { !$0.familyMarks.isEmpty }) {
            items.append(
                (
                    { svg, x, y in svg.line(x1: x + 15, y1: y - 12, x2: x + 15, y2: y + 4, stroke: "#6a1b9a", width: 2)
                    },
                    "joined / left the family; ✕ a share cancelled inside the delay"
                ))
        }
        if now {
            items.append(
                (
                    { svg, x, y in
                        svg.line(x1: x + 15, y1: y - 12, x2: x + 15, y2: y + 4, stroke: "#d50000", width: 1.5)
                    }, "now (the server's clock)"
                ))
        }
        if strip {
            items.append(
                (
                    { svg, x, y in
                        svg.rect(x: x, y: y - 10, width: 30, height: 14, fill: "url(#phase-active)", stroke: "#333")
                    }, "top strip: customers in each phase, stacked"
                ))
        }
        let heading = top + 12
        if svg.placer.place("Legend", size: 12, bold: true, [(16, heading, .start)]) != nil {
            svg.text("Legend", x: 16, y: heading, size: 12, bold: true)
        }
        var x = 16.0
        var y = heading + 22
        for item in items {
            let w = 38 + TextMetrics.width(item.text, size: Self.small)
            if x + w > Self.width - 16 {
                x = 16
                y += 22
            }
            item.draw(&svg, x, y)
            if svg.placer.place(item.text, size: Self.small, [(x + 38, y, .start)]) != nil {
                svg.text(item.text, x: x + 38, y: y, size: Self.small)
            } else {
                svg.leftOut += 1
            }
            x += w + 22
        }
        return y + 6
    }

    /// What was left out, one sentence each.
    func omissionNotes(drawnLanes: Int, drawnCustomers: Int, collapsed: Int) -> [String] {
        var notes: [String] = []
        if customerCount > drawnCustomers {
            notes.append(
                "Not drawn: \(Self.count(customerCount - drawnCustomers, "more customer")) (lanes for "
                    + "\(DecimalText.grouped(drawnCustomers)), the most eventful first"
                    + (lanes.count < customerCount ? " among the first \(DecimalText.grouped(lanes.count))" : "")
                    + "; --customers chooses).")
        }
        if collapsed > 0 {
            notes.append("Identical lanes collapsed: each \"+N alike\" lane stands for N more customers.")
        }
        if omittedBars > 0 {
            notes.append(
                "Not drawn: subscriptions beyond \(caps.barsPerLane) per customer (\(omittedBars) notifications).")
        }
        let markers = lanes.reduce(0) { $0 + $1.omittedMarkers } + omittedAppMarkers
        if markers > 0 {
            notes.append(
                "Not marked: \(DecimalText.grouped(markers)) notifications after the first "
                    + "\(DecimalText.grouped(caps.markersPerLane)) of a customer.")
        }
        if omittedPieces > 0 {
            notes.append(
                "Not drawn: \(DecimalText.grouped(omittedPieces)) phase changes after the first "
                    + "\(DecimalText.grouped(caps.piecesPerBar)) of a subscription.")
        }
        if omittedAccess > 0 {
            notes.append(
                "Not marked: \(DecimalText.grouped(omittedAccess)) access changes after the first "
                    + "\(DecimalText.grouped(caps.accessPerLane)) of a customer.")
        }
        return notes
    }

    /// `text` cut (with "…") to `width` px.
    static func fit(_ text: String, size: Double, bold: Bool = false, width: Double) -> String {
        if TextMetrics.width(text, size: size, bold: bold) <= width { return text }
        var cut = Substring(text)
        while !cut.isEmpty && TextMetrics.width(cut + "…", size: size, bold: bold) > width { cut.removeLast() }
        return cut + "…"
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

    static func shortDate(_ instant: Instant) -> String {
        let k = CalendarMath.components(of: instant)
        return pad(k.year, 4) + "-" + pad(k.month, 2) + "-" + pad(k.day, 2)
    }

    static func shortDateTime(_ instant: Instant) -> String {
        let k = CalendarMath.components(of: instant)
        return shortDate(instant) + " " + pad(k.hour, 2) + ":" + pad(k.minute, 2)
    }

    /// Ticks for the axis after `from`: on calendar boundaries (whole hours or minutes, midnights, Mondays, month
    /// starts; UTC) for `dates`, or round offsets from `start` labelled as a scenario's `at:` for `offsets`.
    /// About 4 to 9 of them; the axis' start is labelled by the caller.
    static func ticks(
        from: Instant, to end: Instant, axis: PictureView.Axis = .dates, start: Instant? = nil
    ) -> [(instant: Instant, label: String)] {
        let span = from.milliseconds(to: end)
        let day: Int64 = 86_400_000
        var ticks: [(Instant, String)] = []
        if axis == .offsets {
            let origin = start ?? from
            if span > 70 * day {
                let months = [1, 2, 3, 6, 12, 24, 60, 120].first { Int64($0) * 30 * day * 8 >= span } ?? 240
                var k = months
                while ticks.count <= 40 {
                    let instant = CalendarMath.add(.months(k), to: origin)
                    if instant > end { break }
                    if instant > from { ticks.append((instant, k % 12 == 0 ? "P\(k / 12)Y" : "P\(k)M")) }
                    k += months
                }
                return ticks
            }
            let steps: [Int64] = [
                60_000, 5 * 60_000, 15 * 60_000, 30 * 60_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000,
                12 * 3_600_000, day, 2 * day, 7 * day, 14 * day,
            ]
            let step = steps.first { $0 * 8 >= span } ?? 14 * day
            let first = max(1, (origin.milliseconds(to: from) + step) / step)
            var k = first
            while ticks.count <= 40 {
                let instant = origin.adding(milliseconds: k * step)
                if instant > end { break }
                ticks.append((instant, "+" + duration(k * step)))
                k += 1
            }
            return ticks
        }
        let c = CalendarMath.components(of: from)
        if span > 70 * day {
            let months = [1, 2, 3, 6, 12, 24, 60, 120].first { Int64($0) * 30 * day * 8 >= span } ?? 240
            var index = c.year * 12 + c.month - 1
            index = (index + months) / months * months
            while ticks.count <= 40 {
                let year = index / 12
                let month = index % 12 + 1
                let instant = CalendarMath.instant(year: year, month: month, day: 1)
                if instant > end { break }
                if instant > from { ticks.append((instant, pad(year, 4) + "-" + pad(month, 2) + "-01")) }
                index += months
            }
            return ticks
        }
        if span > 16 * day {
            // Mondays (every one, or every second or fourth).
            let weeks: Int64 = span > 60 * day ? 2 : 1
            var d = from.millisecondsSince1970 / day
            if from.millisecondsSince1970 % day != 0 || true { d += 1 }
            // 1970-01-01 was a Thursday: day d is a Monday when (d + 3) % 7 == 0.
            while ((d + 3) % 7 + 7) % 7 != 0 { d += 1 }
            while ticks.count <= 40 {
                let instant = Instant(millisecondsSince1970: d * day)
                if instant > end { break }
                ticks.append((instant, "Mon " + shortDate(instant)))
                d += 7 * weeks
            }
            return ticks
        }
        let steps: [Int64] = [
            60_000, 5 * 60_000, 15 * 60_000, 30 * 60_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000,
            day, 2 * day,
        ]
        let step = steps.first { $0 * 8 >= span } ?? 2 * day
        let startMs = from.millisecondsSince1970
        var t = (startMs / step + 1) * step
        var previousDay = CalendarMath.components(of: from).day
        while t <= end.millisecondsSince1970 && ticks.count <= 40 {
            let instant = Instant(millisecondsSince1970: t)
            let k = CalendarMath.components(of: instant)
            var label = shortDate(instant)
            if step < day {
                // The time of day; the date too where the day changes.
                let time = pad(k.hour, 2) + ":" + pad(k.minute, 2)
                label = previousDay == k.day ? time : pad(k.month, 2) + "-" + pad(k.day, 2) + " " + time
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

    /// One pattern per phase: a colour and a texture, so that the phases differ in grey and for colour-blind readers.
    static let patterns = """
        <defs>
        <pattern id="phase-active" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" \
        fill="#2e7d32"/></pattern>
        <pattern id="phase-offer" width="8" height="8" patternUnits="userSpaceOnUse" \
        patternTransform="rotate(45)"><rect width="8" height="8" fill="#a5d6a7"/><rect width="3" height="8" \
        fill="#2e7d32"/></pattern>
        <pattern id="phase-owned" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" \
        fill="#00695c"/><rect x="3" width="2" height="8" fill="#26a69a"/></pattern>
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

/// An ``SVGWriter`` with a ``TextPlacer``: every text drawn through ``put`` is laid out so that none overlaps another
/// or leaves the canvas; a text that finds no free place is counted in ``leftOut``.
struct Painter {
    var writer: SVGWriter
    var placer: TextPlacer
    var leftOut = 0

    init(width: Double) {
        writer = SVGWriter(width: width, height: 100)
        placer = TextPlacer(width: width)
    }

    mutating func put(
        _ text: String, size: Double, bold: Bool = false, fill: String = "#222", halo: Bool = false,
        data: [(String, String)] = [], _ candidates: [(Double, Double, SVGWriter.Anchor)]
    ) {
        if let p = placer.place(text, size: size, bold: bold, candidates) {
            writer.text(
                text, x: p.x, y: p.y, size: size, anchor: p.anchor, bold: bold, fill: fill, halo: halo, data: data)
        } else {
            leftOut += 1
        }
    }

    mutating func put(
        _ text: String, _ size: Double, _ bold: Bool, _ fill: String, _ halo: Bool, _ data: [(String, String)],
        _ candidates: [(Double, Double, SVGWriter.Anchor)]
    ) {
        put(text, size: size, bold: bold, fill: fill, halo: halo, data: data, candidates)
    }

    mutating func raw(_ text: String) { writer.raw(text) }
    mutating func element(_ name: String, _ pairs: [(String, String)]) { writer.element(name, pairs) }
    mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: String, stroke: String? = nil) {
        writer.rect(x: x, y: y, width: width, height: height, fill: fill, stroke: stroke)
    }
    mutating func line(
        x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1, dash: String? = nil
    ) {
        writer.line(x1: x1, y1: y1, x2: x2, y2: y2, stroke: stroke, width: width, dash: dash)
    }
    mutating func circle(cx: Double, cy: Double, r: Double, fill: String, stroke: String? = nil) {
        writer.circle(cx: cx, cy: cy, r: r, fill: fill, stroke: stroke)
    }
    /// Text drawn where it is told (already placed).
    mutating func text(
        _ content: String, x: Double, y: Double, size: Double, bold: Bool = false, fill: String = "#222",
        data: [(String, String)] = []
    ) {
        writer.text(content, x: x, y: y, size: size, bold: bold, fill: fill, data: data)
    }
    mutating func group(title: String, data: [(String, String)] = [], _ content: (inout Painter) -> Void) {
        writer.body.append(
            "<g\(SVGWriter.attributes(data.map { ("data-" + $0.0, $0.1) }))><title>\(SVGWriter.escape(title))</title>")
        content(&self)
        writer.body.append("</g>")
    }
}
