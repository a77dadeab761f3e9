import Foundation
import SubscriptionSimulator
import Testing

/// Figures for the report (not a timed test): with `CHECK_MEASURE=1`, runs each reference backend over 200 cases and
/// (seed `CHECK_SEED`, default 1) and prints how many cases it took to find each bug, the shrunk size and the wall time. Skipped otherwise.
@Suite struct CheckMeasurementTests {
    /// `CHECK_SEED`, else 1.
    static let seed = ProcessInfo.processInfo.environment["CHECK_SEED"].flatMap { UInt64($0) } ?? 1

    @Test(.enabled(if: ProcessInfo.processInfo.environment["CHECK_MEASURE"] == "1"))
    func measure() throws {
        let scenario = try BackendCheckTests.scenario()
        for bug in ReferenceBackend.Bug.allCases {
            let clock = ContinuousClock()
            var report: CheckReport?
            let elapsed = try clock.measure {
                report = try BackendCheck(scenario: scenario, options: CheckOptions(cases: 200, seed: Self.seed))
                    .run(against: ReferenceBackend(bug).checked)
            }
            guard let report else { continue }
            switch report.verdict {
            case .agrees:
                print(
                    "measure \(bug): agrees, \(report.cases) cases, \(report.notifications) notifications, \(elapsed)")
            case .cannotJudge(let number, let message):
                print("measure \(bug): case \(number) cannot be judged: \(message)")
            case .diverges(let counterexample):
                print(
                    "measure \(bug): found in case \(counterexample.caseNumber), shrunk to "
                        + "\(counterexample.scenario.timeline.count) entries and "
                        + "\(counterexample.scenario.deliveryFaults.count) faults in \(counterexample.shrinkSteps) steps "
                        + "(\(counterexample.shrinkAttempts) candidates), \(elapsed) in all")
            }
        }
    }
}
