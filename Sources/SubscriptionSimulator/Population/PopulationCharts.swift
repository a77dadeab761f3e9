/// The pictures of the cohort model, as SVG files: paying subscribers by month (one line per run, so one per grace
/// length in a comparison), and recoveries by day after the billing failure against Apple's 40% / 75% / 90% points.
package enum PopulationCharts {
    /// File names written by ``files(_:)``.
    package static let payingFile = "paying-by-month.svg"
    package static let recoveriesFile = "recoveries-by-day.svg"
    /// With several runs (`--compare-grace`): each run's paying subscribers minus the first run's (the baseline).
    package static let differenceFile = "paying-difference-by-month.svg"

    static func graceName(_ run: CohortOutputs) -> String {
        run.configuration.grace == 0 ? "grace off" : "grace \(run.configuration.grace) days"
    }

    /// R7.1 per run: paying subscribers at the end of months 1...M.
    package static func payingByMonth(_ runs: [CohortOutputs]) -> String {
        let months = runs.first?.configuration.months ?? 1
        let most = Double(runs.map { $0.payingMonthEnd.max() ?? 0 }.max() ?? 1)
        let least = Double(runs.map { $0.payingMonthEnd.min() ?? 0 }.min() ?? 0)
        // The axis starts near the lowest value, not at zero: grace lengths differ by a few percent at most.
        let pad = Swift.max(1, (most - least) * 0.05)
        let dashes: [String?] = [nil, "9 4", "3 3", "12 3 3 3", "6 2", "1 3"]
        var chart = LineChart(
            title: runs.count > 1
                ? "Paying subscribers at the end of each month, one line per run"
                : "Paying subscribers at the end of each month (\(runs.first.map(graceName) ?? "no run"))",
            xLabel: "month", yLabel: "paying subscribers",
            series: runs.enumerated().map { offset, run in
                LineChart.Series(
                    name: graceName(run),
                    points: run.payingMonthEnd.enumerated().map { (Double($0.offset + 1), Double($0.element)) },
                    color: LineChart.colors[offset % LineChart.colors.count], dash: dashes[offset % dashes.count])
            },
            xRange: 1...Double(max(2, months)), yRange: Swift.max(0, least - pad)...(most + pad))
        chart.xTicks = months <= 24 ? (1...max(2, months)).map(Double.init) : nil
        return chart.svg()
    }

    /// Each run's paying subscribers at the end of each month minus the first run's (the baseline, drawn at zero):
    /// the lines of ``payingByMonth(_:)`` lie within a few percent of each other, so the differences are drawn apart.
    package static func payingDifferenceByMonth(_ runs: [CohortOutputs]) -> String {
        guard let baseline = runs.first else { return "" }
        let months = baseline.configuration.months
        let dashes: [String?] = [nil, "9 4", "3 3", "12 3 3 3", "6 2", "1 3"]
        let series = runs.enumerated().map { offset, run in
            LineChart.Series(
                name: offset == 0 ? "\(graceName(run)) (baseline)" : graceName(run),
                points: run.payingMonthEnd.enumerated().map {
                    (Double($0.offset + 1), Double($0.element - (baseline.payingMonthEnd[safe: $0.offset] ?? 0)))
                },
                color: LineChart.colors[offset % LineChart.colors.count], dash: dashes[offset % dashes.count])
        }
        let values = series.flatMap { $0.points.map(\.y) }
        let most = values.max() ?? 1
        let least = values.min() ?? 0
        let pad = Swift.max(1, (most - least) * 0.08)
        var chart = LineChart(
            title: "Paying subscribers: difference from \(graceName(baseline))",
            xLabel: "month", yLabel: "paying minus the baseline", series: series, xRange: 1...Double(max(2, months)),
            yRange: (least - pad)...(most + pad))
        chart.yTick = { value in
            let n = Int(value.rounded())
            return n > 0 ? "+" + DecimalText.grouped(n) : n < 0 ? "-" + DecimalText.grouped(-n) : "0"
        }
        chart.xTicks = months <= 24 ? (1...max(2, months)).map(Double.init) : nil
        return chart.svg()
    }

    /// The share of closed failures (R7.4) recovered within each day after the failure, from the run's
    /// ``CohortOutputs/closedRecoveriesByDay``; the model's CDF (R5.1) dashed; Apple's figures as marked points.
    package static func recoveriesByDay(_ run: CohortOutputs) -> String {
        let closed = Double(Swift.max(1, run.closedFailures.failures))
        var cumulative = 0
        var simulated: [(x: Double, y: Double)] = []
        for (day, count) in run.closedRecoveriesByDay.enumerated() {
            cumulative += count
            simulated.append((Double(day), Double(cumulative) / closed))
        }
        let model = (0...60).map { (x: Double($0), y: CohortModel.recoveredFraction(within: Double($0))) }
        var chart = LineChart(
            title: "Billing failures recovered, by days after the failure (\(graceName(run)))",
            xLabel:
                "days after the billing failure (\(CohortReport.grouped(run.closedFailures.failures)) closed failures)",
            yLabel: "share of failures recovered",
            series: [
                LineChart.Series(name: "simulated", points: simulated, color: LineChart.colors[0]),
                LineChart.Series(name: "model (R5.1)", points: model, color: "#888888", dash: "6 4"),
            ],
            xRange: 0...60, yRange: 0...1)
        chart.yTick = { "\(Int(($0 * 100).rounded()))%" }
        chart.xTicks = [0, 3, 10, 16, 20, 28, 40, 50, 60]
        chart.markers = CohortModel.applePoints.map {
            LineChart.Marker(
                x: Double($0.days), y: $0.fraction, label: "\(Int($0.fraction * 100))% in \($0.days) d")
        }
        chart.markerName = "Apple's figures"
        return chart.svg()
    }

    /// The pictures, by file name: with several runs also the difference from the first. The recovery curve is
    /// drawn from the first run, which its title names (the delay does not depend on the grace length: R5.1 draws
    /// it before grace is looked at).
    package static func files(_ runs: [CohortOutputs]) -> [(name: String, contents: String)] {
        guard let first = runs.first else { return [] }
        var files = [(payingFile, payingByMonth(runs)), (recoveriesFile, recoveriesByDay(first))]
        if runs.count > 1 { files.insert((differenceFile, payingDifferenceByMonth(runs)), at: 1) }
        return files
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
