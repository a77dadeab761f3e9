import Foundation
import Testing

@testable import SubscriptionSimulator

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The `svg` format (``TimelinePicture``): every scenario renders to well-formed XML naming every customer and every
/// notification; the same run gives the same bytes; text is escaped; the caps hold and are said; the docs' picture is
/// current.
@Suite struct TimelinePictureTests {
    /// Every `<title>` and every `<text>`, and each element's attributes.
    final class Collector: NSObject, XMLParserDelegate {
        var titles: [String] = []
        var texts: [String] = []
        var elements: [(name: String, attributes: [String: String])] = []
        /// Each `<text>`: its attributes and content.
        var textElements: [(attributes: [String: String], content: String)] = []
        var textAttributes: [String: String] = [:]
        var pending = ""
        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements.append((elementName, attributes))
            if elementName == "text" { textAttributes = attributes }
            pending = ""
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { pending += string }
        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
        ) {
            if elementName == "title" { titles.append(pending) }
            if elementName == "text" {
                texts.append(pending)
                textElements.append((textAttributes, pending))
            }
            pending = ""
        }
    }

    static func parse(_ svg: String) -> Collector? {
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = Collector()
        parser.delegate = collector
        guard parser.parse() else {
            Issue.record("not well-formed: \(String(describing: parser.parserError))")
            return nil
        }
        #expect(collector.elements.first?.name == "svg")
        #expect(collector.elements.first?.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        return collector
    }

    static func run(_ url: URL) throws -> ScenarioRun {
        let text = try PackagePaths.read(url)
        return try ScenarioRunner.run(
            try ScenarioDecoder(file: "Scenarios/\(url.lastPathComponent)", baseDirectory: PackagePaths.scenarios.path)
                .decode(text))
    }

    @Test func everyScenarioRendersNamingEveryCustomerAndNotification() throws {
        let files = PackagePaths.yamlFiles(in: PackagePaths.scenarios)
        #expect(files.count > 20)
        for file in files {
            let run = try Self.run(file)
            let svg = RunOutput.svg(run)
            #expect(svg == RunOutput.svg(try Self.run(file)), "\(file.lastPathComponent): same run, same bytes")
            #expect(!svg.contains("<script") && !svg.contains("href"), "self-contained")
            guard let parsed = Self.parse(svg) else { continue }
            for customer in run.scenario.customers {
                #expect(parsed.texts.contains(customer), "\(file.lastPathComponent): lane of \(customer)")
            }
            // Each notification has its marker's title (type, subtype, instant, status, recipient), as often as
            // it was sent.
            var titles: [String: Int] = [:]
            for title in parsed.titles { titles[title, default: 0] += 1 }
            for n in run.store.notifications {
                let title = TimelinePicture.title(n)
                #expect(titles[title, default: 0] > 0, "\(file.lastPathComponent): no marker for \(title)")
                titles[title, default: 0] -= 1
            }
            #expect(!svg.contains("Not drawn") && !svg.contains("Not marked"), "below the caps nothing is left out")
        }
    }

    /// Streamed (the store keeping only its live state, as `simctl run` does) or drawn from a finished run: the same
    /// bytes.
    @Test func theStreamedPictureIsTheFinishedRunsPicture() throws {
        for file in PackagePaths.yamlFiles(in: PackagePaths.scenarios) {
            let run = try Self.run(file)
            var bytes: [UInt8] = []
            withoutActuallyEscaping({ (chunk: [UInt8]) in bytes.append(contentsOf: chunk) }) { write in
                var sink = PictureSink(scenario: run.scenario, write: write)
                _ = ScenarioRunner.stream(run.scenario, retention: .liveState, into: &sink)
                sink.finish()
            }
            #expect(String(decoding: bytes, as: UTF8.self) == RunOutput.svg(run), "\(file.lastPathComponent)")
        }
    }

    @Test func phasesHaveLabelsAndPatternsAndTheFamilyDelayIsDrawn() throws {
        let run = try Self.run(PackagePaths.scenarios.appendingPathComponent("family-billing-grace-recovery.yaml"))
        let svg = RunOutput.svg(run)
        let parsed = try #require(Self.parse(svg))
        let phases = Set(parsed.elements.compactMap { $0.attributes["data-phase"] })
        #expect(phases.isSuperset(of: ["active", "grace"]), "\(phases)")
        for phase in TimelinePicture.Phase.allCases {
            #expect(svg.contains("<pattern id=\"phase-\(phase.label)\""))
            #expect(parsed.texts.contains(phase.name), "legend names \(phase.name)")
        }
        #expect(parsed.texts.contains("+1h"), "the family delay at the member's bar")
        #expect(parsed.titles.contains { $0.hasPrefix("family delay 1h (configured +1h)") })
        #expect(parsed.texts.contains("2026-01-01") || parsed.texts.contains { $0.hasPrefix("20") }, "dated axis")
    }

    @Test func everyTextIsEscaped() throws {
        var scenario = try ScenarioDecoder(file: "s.yaml").decode(
            try PackagePaths.read(PackagePaths.scenarios.appendingPathComponent("family-refund.yaml")))
        scenario.name = "A <b>&\"quoted\" 'name'\u{1}"
        let run = try ScenarioRunner.run(scenario)
        let svg = RunOutput.svg(run)
        let parsed = try #require(Self.parse(svg))
        #expect(parsed.texts.contains("A <b>&\"quoted\" 'name'\u{FFFD}"))
        #expect(!svg.contains("<b>"))
    }

    /// The text boxes of a picture, measured with the writer's own metrics (``TextMetrics``), and the canvas.
    static func boxes(_ parsed: Collector) -> (boxes: [(TextBox, String)], width: Double, height: Double) {
        let root = parsed.elements.first?.attributes ?? [:]
        let width = Double(root["width"] ?? "") ?? 0
        let height = Double(root["height"] ?? "") ?? 0
        var boxes: [(TextBox, String)] = []
        for (attributes, content) in parsed.textElements where attributes["transform"] == nil {
            let x = Double(attributes["x"] ?? "") ?? .nan
            let y = Double(attributes["y"] ?? "") ?? .nan
            let size = Double(attributes["font-size"] ?? "") ?? .nan
            let anchor = SVGWriter.Anchor(rawValue: attributes["text-anchor"] ?? "start") ?? .start
            boxes.append(
                (
                    TextMetrics.box(
                        content, x: x, y: y, size: size, anchor: anchor, bold: attributes["font-weight"] == "bold"),
                    content
                ))
        }
        return (boxes, width, height)
    }

    /// No two texts overlap and none leaves the canvas; no text is smaller than 11 px.
    static func expectLaidOut(_ svg: String, _ name: String) {
        guard let parsed = parse(svg) else { return }
        let (boxes, width, height) = boxes(parsed)
        #expect(width > 0 && height > 0, "\(name): a canvas")
        for (box, text) in boxes {
            #expect(box.inside(width: width, height: height), "\(name): '\(text)' leaves the canvas: \(box)")
        }
        for (attributes, content) in parsed.textElements {
            #expect((Double(attributes["font-size"] ?? "") ?? 0) >= 11, "\(name): '\(content)' under 11 px")
        }
        let sorted = boxes.sorted { $0.0.x0 < $1.0.x0 }
        for i in sorted.indices {
            var j = i + 1
            while j < sorted.count && sorted[j].0.x0 < sorted[i].0.x1 {
                #expect(
                    !sorted[i].0.overlaps(sorted[j].0),
                    "\(name): '\(sorted[i].1)' \(sorted[i].0) overlaps '\(sorted[j].1)' \(sorted[j].0)")
                j += 1
            }
        }
    }

    @Test func noTextOverlapsAnotherOrLeavesTheCanvasInAnyScenario() throws {
        for file in PackagePaths.yamlFiles(in: PackagePaths.scenarios) {
            let run = try Self.run(file)
            Self.expectLaidOut(RunOutput.svg(run), file.lastPathComponent)
            // With offsets on the axis, a window, and as the server draws it (a "now" line).
            var picture = TimelinePicture(
                scenario: run.scenario,
                view: PictureView(
                    from: run.scenario.start.adding(milliseconds: 3_600_000), to: run.scenario.until, axis: .offsets))
            picture.add(run.store.notifications[...], run.store.entitlementChanges[...])
            Self.expectLaidOut(
                picture.svg(until: run.scenario.until, now: run.scenario.until), file.lastPathComponent + " (offsets)")
        }
    }

    /// Every notification's marker carries its kind (`data-kind`): a shape per kind, and the printed label or the
    /// kind in the legend; a REVOKE says why.
    @Test func everyNotificationKindHasItsShapeAndLabel() throws {
        var kindsSeen: Set<String> = []
        for file in PackagePaths.yamlFiles(in: PackagePaths.scenarios) {
            let run = try Self.run(file)
            let parsed = try #require(Self.parse(RunOutput.svg(run)))
            var groups: [String: Int] = [:]
            for element in parsed.elements where element.name == "g" {
                if let kind = element.attributes["data-kind"] { groups[kind, default: 0] += 1 }
            }
            var expected: [String: Int] = [:]
            for n in run.store.notifications {
                let kind = EventKind.of(n)
                expected[kind.label.isEmpty ? "renewal" : kind.label, default: 0] += 1
                kindsSeen.insert(n.type.rawValue + (n.subtype.map { " " + $0.rawValue } ?? ""))
                // The legend names every kind drawn.
                #expect(
                    parsed.texts.contains { $0.hasSuffix(kind.meaning) }, "\(file.lastPathComponent): legend \(kind)")
            }
            #expect(groups == expected, "\(file.lastPathComponent)")
            // Distinct kinds are told apart: two kinds never share both label and shape.
        }
        #expect(kindsSeen.count > 20, "\(kindsSeen.count) kinds of notification in the scenarios")
        let labels = [
            "family-plan-change-shareable.yaml": "REVOKE: plan not shareable",
            "family-member-leaves.yaml": "REVOKE: left the family", "family-stop-sharing.yaml": "REVOKE: sharing off",
            "family-refund.yaml": "REVOKE: refund", "price-increase-notice.yaml": "PRICE ↑",
            "billing-retry-recovery-day-10.yaml": "FAIL",
            "auto-renew-off-and-on-prorated-refund.yaml": "AUTO-RENEW OFF",
            "plan-upgrade.yaml": "PLAN ↑", "offers.yaml": "OFFER",
        ]
        for (file, label) in labels.sorted(by: { $0.key < $1.key }) {
            let run = try Self.run(PackagePaths.scenarios.appendingPathComponent(file))
            let parsed = try #require(Self.parse(RunOutput.svg(run)))
            #expect(parsed.texts.contains(label), "\(file): printed '\(label)'")
        }
    }

    /// Each product, billing plan or price change on a subscription splits its bar: a part (`data-segment`) per
    /// product in force, named.
    @Test func eachProductChangeSplitsItsBar() throws {
        var changes = 0
        for file in PackagePaths.yamlFiles(in: PackagePaths.scenarios) {
            let run = try Self.run(file)
            let parsed = try #require(Self.parse(RunOutput.svg(run)))
            // The product in force as the notifications report it, per subscription.
            var products: [String: [String]] = [:]
            for n in run.store.notifications {
                guard let t = n.transaction, let recipient = n.recipient else { continue }
                let inForce = [.subscribed, .didRenew, .offerRedeemed].contains(n.type) || n.subtype == .upgrade
                guard inForce else { continue }
                let key = recipient + "/" + t.originalTransactionId
                if products[key]?.last != t.productId { products[key, default: []].append(t.productId) }
            }
            let segments = parsed.elements.compactMap { $0.name == "g" ? $0.attributes["data-segment"] : nil }
            for (key, sequence) in products.sorted(by: { $0.key < $1.key }) where sequence.count > 1 {
                changes += sequence.count - 1
                for product in sequence {
                    #expect(segments.contains(product), "\(file.lastPathComponent): \(key) has a part for \(product)")
                    #expect(
                        parsed.texts.contains { $0.hasPrefix(TimelinePicture.shortName(product)) },
                        "\(file.lastPathComponent): the part of \(product) is named")
                }
            }
            let splits = products.values.reduce(0) { $0 + $1.count - 1 }
            #expect(segments.count >= products.count + splits, "\(file.lastPathComponent): \(segments.count) parts")
        }
        #expect(changes >= 5, "plan changes in the scenarios: \(changes)")
    }

    /// The family delay is measured from the event that started the share and drawn at the member's bar, inside the
    /// canvas: `family-plan-change-shareable` shares twice (the purchase, the upgrade on day 40), one hour each.
    @Test func theFamilyDelayIsDrawnAtTheMembersBar() throws {
        let run = try Self.run(PackagePaths.scenarios.appendingPathComponent("family-plan-change-shareable.yaml"))
        let svg = RunOutput.svg(run)
        let parsed = try #require(Self.parse(svg))
        let (_, width, height) = Self.boxes(parsed)
        let names = parsed.textElements.filter { $0.attributes["data-lane"] != nil }
        for member in ["bob", "carol"] {
            let delays = parsed.textElements.filter { $0.attributes["data-delay"] == member }
            #expect(delays.map(\.content) == ["+1h", "+1h"], "\(member): \(delays.map(\.content))")
            let laneY = try #require(names.first { $0.content == member }.flatMap { Double($0.attributes["y"]!) })
            let nextY = names.compactMap { Double($0.attributes["y"]!) }.filter { $0 > laneY }.min() ?? height
            for delay in delays {
                let box = TextMetrics.box(
                    delay.content, x: Double(delay.attributes["x"]!)!, y: Double(delay.attributes["y"]!)!, size: 11,
                    anchor: SVGWriter.Anchor(rawValue: delay.attributes["text-anchor"]!)!, bold: true)
                #expect(box.inside(width: width, height: height))
                #expect(box.y0 > laneY - 30 && box.y1 < nextY - 10, "\(member)'s delay in \(member)'s lane: \(box)")
            }
        }
        #expect(!svg.contains("40d 1h"), "not measured from the first purchase")
        // A share cancelled inside the delay is drawn as such.
        let off = try Self.run(PackagePaths.scenarios.appendingPathComponent("family-sharing-off-inside-delay.yaml"))
        let offParsed = try #require(Self.parse(RunOutput.svg(off)))
        #expect(offParsed.texts.contains("+1h share cancelled"), "\(offParsed.texts)")
        // A member who joins is drawn inside the family group, marked where they joined.
        let joins = try Self.run(PackagePaths.scenarios.appendingPathComponent("family-member-joins.yaml"))
        let joinsParsed = try #require(Self.parse(RunOutput.svg(joins)))
        #expect(joinsParsed.texts.contains("JOINED") && joinsParsed.texts.contains("member (joined)"))
        let leaves = try Self.run(PackagePaths.scenarios.appendingPathComponent("family-member-leaves.yaml"))
        let leavesParsed = try #require(Self.parse(RunOutput.svg(leaves)))
        #expect(leavesParsed.texts.contains("LEFT") && leavesParsed.texts.contains("left the family"))
    }

    /// A run with many customers: lanes for the most eventful, identical lanes collapsed with a count, the phase
    /// strip, a note; bounded size.
    @Test func aLargeRunIsAnOverview() throws {
        var yaml = """
            name: many
            start: 2026-01-05T00:00:00Z
            seed: 1
            app: { bundleId: com.example.many, appAppleId: 1 }
            products:
              - { id: com.example.many.monthly, type: autoRenewable, group: g, level: 1, period: P1M, price: 4.99 }
            timeline:

            """
        var entries: [(day: Int, line: String)] = []
        for i in 0..<300 {
            // 3 stories: buy; buy and cancel; buy, fail billing, fix it. Customer 7 fails, recovers and cancels.
            let c = "user-\(i)"
            entries.append(
                (i % 3, "  - { at: \(i % 3)d, purchase: { customer: \(c), product: com.example.many.monthly } }\n"))
            if i % 3 == 1 && i != 7 {
                entries.append((10, "  - { at: 10d, cancel: { customer: \(c), product: com.example.many.monthly } }\n"))
            }
            if i % 3 == 2 || i == 7 {
                entries.append((25, "  - { at: 25d, failBilling: { customer: \(c) } }\n"))
                entries.append((40, "  - { at: 40d, fixBilling: { customer: \(c) } }\n"))
            }
            if i == 7 {
                entries.append((50, "  - { at: 50d, cancel: { customer: \(c), product: com.example.many.monthly } }\n"))
            }
        }
        for entry in entries.enumerated().sorted(by: {
            $0.element.day != $1.element.day ? $0.element.day < $1.element.day : $0.offset < $1.offset
        }) {
            yaml += entry.element.line
        }
        yaml += "until: P3M\n"
        let scenario = try ScenarioDecoder(file: "many.yaml").decode(yaml)
        let run = try ScenarioRunner.run(scenario)
        let svg = RunOutput.svg(run)
        #expect(svg.utf8.count < 1_000_000)
        let parsed = try #require(Self.parse(svg))
        let lanes = parsed.textElements.filter { $0.attributes["data-lane"] != nil }.map(\.content)
        #expect(lanes.first == "user-7", "the most eventful first: \(lanes.prefix(3))")
        #expect(lanes.count <= 40 && lanes.count >= 4, "\(lanes)")
        let alike = parsed.textElements.compactMap { $0.attributes["data-alike"].flatMap { Int($0) } }
        #expect(alike.reduce(0, +) + lanes.count - alike.count == 300, "every customer stands in a lane: \(alike)")
        #expect(parsed.elements.contains { $0.attributes["data-strip"] == "active" }, "the phase strip")
        #expect(parsed.texts.contains("customers by phase"))
        Self.expectLaidOut(svg, "many")
        // Chosen customers, by name and by pattern.
        var chosen = TimelinePicture(scenario: scenario, view: PictureView(customers: ["user-1?", "user-200"]))
        chosen.add(run.store.notifications[...], run.store.entitlementChanges[...])
        let chosenParsed = try #require(Self.parse(chosen.svg(until: scenario.until)))
        let chosenLanes = chosenParsed.textElements.filter { $0.attributes["data-lane"] != nil }.map(\.content)
        #expect(Set(chosenLanes) == Set((10...19).map { "user-\($0)" } + ["user-200"]), "\(chosenLanes)")
    }

    @Test func theViewOptionsAreChecked() throws {
        let start = CalendarMath.instant(year: 2026, month: 3, day: 1, hour: 9)
        let known = ["alice", "bob", "user-1"]
        func parse(_ customers: String? = nil, from: String? = nil, to: String? = nil, axis: String? = nil)
            -> Result<PictureView, PictureViewError>
        {
            PictureView.parse(customers: customers, from: from, to: to, axis: axis, start: start, known: known)
        }
        #expect(try parse("alice, user-*").get().customers == ["alice", "user-*"])
        #expect(
            try parse(from: "10d", to: "2026-04-01T00:00:00Z").get().from == start.adding(milliseconds: 864_000_000))
        #expect(try parse(axis: "offsets").get().axis == .offsets)
        for (result, message) in [
            (parse("carol"), "no customer 'carol' in the scenario (its customers: alice, bob, user-1)"),
            (parse("x*"), "the pattern 'x*' matches none"), (parse("alice,,bob"), "none empty"),
            (parse(from: "soon"), "needs an offset from the start"), (parse(from: "10d", to: "1d"), "must be later"),
            (parse(axis: "weeks"), "needs dates or offsets, found 'weeks'"),
        ] {
            switch result {
            case .success: Issue.record("accepted; expected \(message)")
            case .failure(let error): #expect(error.description.contains(message), "\(error)")
            }
        }
        #expect(PictureView.matches("user-12", "user-*") && !PictureView.matches("user-12", "user-?"))
        #expect(
            PictureView.matches("abc", "a*c") && PictureView.matches("ac", "a*c") && !PictureView.matches("ab", "a*c"))
    }

    @Test func theAxisIsLabelledOnCalendarBoundaries() {
        let start = CalendarMath.instant(year: 2026, month: 3, day: 1, hour: 9)
        let hours = TimelinePicture.ticks(from: start, to: start.adding(milliseconds: 3 * 3_600_000))
        #expect(hours.first?.label == "09:30" && hours.allSatisfy { !$0.label.isEmpty }, "\(hours.map(\.label))")
        let overnight = TimelinePicture.ticks(from: start, to: start.adding(milliseconds: 20 * 3_600_000))
        #expect(overnight.map(\.label) == ["12:00", "15:00", "18:00", "21:00", "03-02 00:00", "03:00"])
        // 2026-03-01 is a Sunday: weekly ticks fall on Mondays.
        let weeks = TimelinePicture.ticks(from: start, to: start.adding(milliseconds: 40 * 86_400_000))
        #expect(
            weeks.map(\.label) == [
                "Mon 2026-03-02", "Mon 2026-03-09", "Mon 2026-03-16", "Mon 2026-03-23", "Mon 2026-03-30",
                "Mon 2026-04-06",
            ])
        let year = TimelinePicture.ticks(from: start, to: CalendarMath.instant(year: 2027, month: 3, day: 1, hour: 9))
        #expect(year.allSatisfy { $0.label.hasSuffix("-01") } && year.count >= 4, "whole months: \(year.map(\.label))")
        let offsets = TimelinePicture.ticks(
            from: start, to: start.adding(milliseconds: 40 * 86_400_000), axis: .offsets, start: start)
        #expect(offsets.map(\.label).prefix(2) == ["+7d", "+14d"], "\(offsets.map(\.label))")
        let months = TimelinePicture.ticks(
            from: start, to: CalendarMath.instant(year: 2026, month: 9, day: 1, hour: 9), axis: .offsets, start: start)
        #expect(months.map(\.label) == ["P1M", "P2M", "P3M", "P4M", "P5M", "P6M"], "\(months.map(\.label))")
    }

    /// docs/scenario-format.md and docs/family-sharing.md show the picture of their main example; it is what the
    /// project draws now (RECORD=1 rewrites it).
    @Test func theDocsPictureIsCurrent() throws {
        let run = try Self.run(PackagePaths.scenarios.appendingPathComponent("family-stop-sharing.yaml"))
        let svg = RunOutput.svg(run)
        let url = PackagePaths.docs.appendingPathComponent("family-stop-sharing.svg")
        if PackagePaths.recording { try Data(svg.utf8).write(to: url) }
        #expect(try PackagePaths.read(url) == svg, "docs/family-stop-sharing.svg is stale; RECORD=1 rewrites it")
        for doc in ["scenario-format.md", "family-sharing.md"] {
            #expect(
                try PackagePaths.read(PackagePaths.docs.appendingPathComponent(doc)).contains("family-stop-sharing.svg")
            )
        }
    }
}
