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
        var pending = ""
        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements.append((elementName, attributes))
            pending = ""
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { pending += string }
        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
        ) {
            if elementName == "title" { titles.append(pending) }
            if elementName == "text" { texts.append(pending) }
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
        #expect(parsed.texts.contains { $0.hasPrefix("family delay 1h") })
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

    @Test func aboveTheCapsANoteSaysWhatWasLeftOut() throws {
        let run = try Self.run(PackagePaths.scenarios.appendingPathComponent("family-billing-grace-recovery.yaml"))
        var caps = TimelinePicture.Caps()
        caps.lanes = 1
        caps.markers = 2
        caps.pieces = 1
        var picture = TimelinePicture(scenario: run.scenario, caps: caps)
        picture.add(run.store.notifications[...], run.store.entitlementChanges[...])
        let svg = picture.svg(until: run.scenario.until)
        let parsed = try #require(Self.parse(svg))
        let others = run.scenario.customers.count - 1
        let lanes = "Not drawn: \(others) more customer\(others == 1 ? "" : "s") (the first 1 have lanes) and their "
        #expect(parsed.texts.contains { $0.hasPrefix(lanes) }, "\(parsed.texts)")
        let first = try #require(run.scenario.family?.organizer)
        let marked = run.store.notifications.filter { $0.recipient == first }.count - 2
        #expect(marked > 0)
        #expect(parsed.texts.contains("Not marked: \(marked) notifications after the first 2."))
        #expect(parsed.texts.contains { $0.hasPrefix("Not drawn: ") && $0.contains("phase changes after the first 1") })
        #expect(
            parsed.elements.filter { $0.name == "circle" }.count == 2 + 2, "two markers, the legend's and a pattern's")
    }

    @Test func theAxisIsDatedInUTCWithFewLabels() {
        let start = CalendarMath.instant(year: 2026, month: 3, day: 1, hour: 9)
        let hours = TimelinePicture.ticks(from: start, to: start.adding(milliseconds: 3 * 3_600_000))
        #expect(hours.map(\.label) == ["2026-03-01 09:00", "10:00", "11:00", "12:00"])
        let overnight = TimelinePicture.ticks(from: start, to: start.adding(milliseconds: 20 * 3_600_000))
        #expect(
            overnight.map(\.label) == [
                "2026-03-01 09:00", "12:00", "15:00", "18:00", "21:00", "2026-03-02 00:00", "03:00",
            ])
        let year = TimelinePicture.ticks(from: start, to: CalendarMath.instant(year: 2027, month: 3, day: 1, hour: 9))
        #expect(year.map(\.label).first == "2026-05-01" && year.count == 6)
        #expect(year.allSatisfy { $0.label.hasSuffix("-01") }, "whole months")
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
