import Foundation
import Testing

@testable import SubscriptionSimulator

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The SVG pictures parse as well-formed XML and draw the expected series.
@Suite struct PopulationChartsTests {
    /// What a parse found: the elements' attributes by element name, and every text node.
    final class Collector: NSObject, XMLParserDelegate {
        var elements: [(name: String, attributes: [String: String])] = []
        var texts: [String] = []
        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements.append((elementName, attributes))
        }
        /// Characters arrive in pieces (an entity is a piece of its own): joined until the element ends.
        var pending = ""
        func parser(_ parser: XMLParser, foundCharacters string: String) { pending += string }
        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
        ) {
            let trimmed = pending.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { texts.append(trimmed) }
            pending = ""
        }
    }

    static func parse(_ svg: String) throws -> Collector {
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = Collector()
        parser.delegate = collector
        let parsed = parser.parse()
        #expect(parsed, "not well-formed: \(String(describing: parser.parserError))")
        #expect(collector.elements.first?.name == "svg")
        #expect(collector.elements.first?.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        return collector
    }

    /// The polyline of a named series, as (x, y) values.
    static func series(_ collector: Collector, _ name: String) -> [[Double]]? {
        guard
            let line = collector.elements.first(where: { $0.name == "polyline" && $0.attributes["data-series"] == name }
            )
        else { return nil }
        return line.attributes["data-values"]?.split(separator: " ").map {
            $0.split(separator: ",").map { Double($0)! }
        }
    }

    static let runs: [CohortOutputs] = CohortModel.graceLengths.map {
        try! CohortSimulation.run(CohortConfiguration(subscribers: 3_000, grace: $0, seed: 3))
    }

    @Test func payingByMonthHasOneLinePerGraceLengthWithTheMonthEndValues() throws {
        let collector = try Self.parse(PopulationCharts.payingByMonth(Self.runs))
        for run in Self.runs {
            let name = run.configuration.grace == 0 ? "grace off" : "grace \(run.configuration.grace) days"
            let values = try #require(Self.series(collector, name), "no line for \(name)")
            #expect(values.map { $0[0] } == (1...12).map(Double.init))
            #expect(values.map { $0[1] } == run.payingMonthEnd.map(Double.init))
            #expect(collector.texts.contains(name), "legend entry for \(name)")
        }
        #expect(collector.elements.filter { $0.name == "polyline" }.count == 4)
        for label in ["Paying subscribers at the end of each month, one line per run", "month", "paying subscribers"] {
            #expect(collector.texts.contains(label), "\(label)")
        }
    }

    /// With --compare-grace the differences are drawn apart: each run minus the first, the first at zero.
    @Test func theDifferenceChartDrawsEachRunMinusTheBaseline() throws {
        let collector = try Self.parse(PopulationCharts.payingDifferenceByMonth(Self.runs))
        let baseline = try #require(Self.series(collector, "grace off (baseline)"))
        #expect(baseline.allSatisfy { $0[1] == 0 })
        for run in Self.runs.dropFirst() {
            let values = try #require(Self.series(collector, "grace \(run.configuration.grace) days"))
            #expect(
                values.map { $0[1] } == zip(run.payingMonthEnd, Self.runs[0].payingMonthEnd).map { Double($0 - $1) })
        }
        #expect(collector.texts.contains("Paying subscribers: difference from grace off"))
        #expect(
            PopulationCharts.files(Self.runs).map(\.name) == [
                PopulationCharts.payingFile, PopulationCharts.differenceFile, PopulationCharts.recoveriesFile,
            ])
        #expect(PopulationCharts.files([Self.runs[0]]).count == 2)
        // The recovery chart says which run it shows.
        let recoveries = try Self.parse(PopulationCharts.recoveriesByDay(Self.runs[2]))
        #expect(recoveries.texts.contains("Billing failures recovered, by days after the failure (grace 16 days)"))
    }

    @Test func recoveriesByDayEndAtTheRecoveredShareWithApplesThreePoints() throws {
        let run = Self.runs[2]
        let collector = try Self.parse(PopulationCharts.recoveriesByDay(run))
        let simulated = try #require(Self.series(collector, "simulated"))
        #expect(simulated.count == 61)
        let recovered = Double(run.closedFailures.recoveredInGrace + run.closedFailures.recoveredAfterGrace)
        #expect(abs(simulated.last![1] - recovered / Double(run.closedFailures.failures)) < 1e-6)
        #expect(zip(simulated, simulated.dropFirst()).allSatisfy { $0[1] <= $1[1] }, "cumulative")
        let model = try #require(Self.series(collector, "model (R5.1)"))
        #expect(model[3][1] == 0.4 && model[16][1] == 0.75 && model[28][1] == 0.9)
        let marks = collector.elements.filter {
            $0.name == "circle" && $0.attributes["data-series"] == "Apple's figures"
        }
        #expect(marks.count == 3)
        for label in ["40% in 3 d", "75% in 16 d", "90% in 28 d", "Apple's figures", "share of failures recovered"] {
            #expect(collector.texts.contains(label), "\(label)")
        }
    }

    @Test func textAndAttributesAreEscaped() throws {
        var svg = SVGWriter(width: 10, height: 10)
        svg.text("a < b & \"c\"", x: 1, y: 2)
        svg.polyline([(0, 0), (1, 1)], stroke: "#000", dataSeries: "x's & y's")
        let collector = try Self.parse(svg.document(title: "T&T"))
        #expect(collector.texts.contains("a < b & \"c\""))
        #expect(collector.elements.contains { $0.attributes["data-series"] == "x's & y's" })
    }

    @Test func numbersHaveAtMostTwoDecimalsAndNoNegativeZero() {
        #expect(SVGWriter.number(1.006) == "1.01")
        #expect(SVGWriter.number(-0.001) == "0")
        #expect(SVGWriter.number(12.5) == "12.5")
        #expect(SVGWriter.number(-3.25) == "-3.25")
        #expect(SVGWriter.number(7) == "7")
    }

    @Test func ticksAreRoundNumbers() {
        #expect(LineChart.ticks(0...1) == [0, 0.2, 0.4, 0.6, 0.8, 1])
        #expect(LineChart.ticks(0...10_000) == [0, 2_000, 4_000, 6_000, 8_000, 10_000])
        #expect(LineChart.ticks(1_050...2_050) == [1_200, 1_400, 1_600, 1_800, 2_000])
    }
}
