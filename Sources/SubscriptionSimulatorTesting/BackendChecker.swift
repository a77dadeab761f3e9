import SubscriptionSimulator

/// `simctl check` for backends written in Swift, in process (docs/check.md): generates `cases` lifecycles from a
/// scenario's header, delivers each one's notifications to `deliver` (with Apple's retries, duplicates and late
/// deliveries), asks `entitlement` about every `originalTransactionId` delivered, and compares with the store's
/// ground truth. The first divergence is shrunk to a counterexample scenario, reported as a test failure (Swift
/// Testing or XCTest, like ``StoreTester``) with the scenario's YAML, so it can be saved and kept as a regression test.
public struct BackendChecker {
    public var scenario: Scenario
    public var options: CheckOptions
    let reporter: FailureReporter

    public init(
        scenario: Scenario, cases: Int = 100, seed: UInt64 = 0, chaos: CheckChaos = .standard,
        reporter: FailureReporter = .automatic
    ) {
        self.scenario = scenario
        options = CheckOptions(cases: cases, seed: seed, chaos: chaos)
        self.reporter = reporter
    }

    /// Runs the check; reports a divergence, a backend that cannot be judged, or unusable options as a failure at
    /// the call site, and returns the report (nil when the check could not run).
    @discardableResult
    public func check(
        deliver: @escaping (DeliveryRequest) throws -> DeliveryOutcome,
        entitlement: @escaping (String) throws -> BackendAnswer?,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> CheckReport? {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let report: CheckReport
        do throws(CheckError) {
            report = try BackendCheck(scenario: scenario, options: options).run(
                against: CheckedBackend(deliver: deliver, entitlement: entitlement))
        } catch {
            reporter.report("the check cannot run: \(error)", site)
            return nil
        }
        if !report.passed { reporter.report(report.description, site) }
        return report
    }
}
