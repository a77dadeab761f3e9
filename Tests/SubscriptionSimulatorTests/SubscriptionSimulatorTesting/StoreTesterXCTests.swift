import SubscriptionSimulator
import SubscriptionSimulatorTesting
import XCTest

/// The assertions under XCTest: the automatic reporter calls XCTFail. XCTExpectFailure does not exist on Linux, so
/// this case captures its own recorded failures while `capturing` is set, and checks them.
final class StoreTesterXCTests: XCTestCase {
    typealias F = StoreTesterFixtures
    private var capturing = false
    private var captured: [String] = []

    #if canImport(Darwin)
        override func record(_ issue: XCTIssue) {
            if capturing { captured.append(issue.compactDescription) } else { super.record(issue) }
        }
    #else
        override func recordFailure(
            withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
        ) {
            if capturing {
                captured.append(description)
            } else {
                super.recordFailure(
                    withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
            }
        }
    #endif

    func testTheAutomaticReporterUsesXCTestInsideAnXCTestCase() {
        XCTAssertEqual(FailureReporter.currentFramework, .xcTest)
    }

    func testAMissingAssertionFailsTheXCTestTest() throws {
        capturing = true
        let tester = StoreTester(F.store(), coverage: .notifications)
        try tester.act { (store: inout SimulatedStore) throws(StoreError) in
            try store.purchase(F.monthly.id, by: "alice")
        }
        tester.finish()
        capturing = false
        XCTAssertEqual(captured.count, 1)
        XCTAssertTrue(
            captured.first?.contains(
                "SUBSCRIBED / INITIAL_BUY to alice for com.example.monthly at 2026-03-01T09:00:00Z (status 1)") == true,
            "\(captured)")
    }

    func testReceivingEveryNotificationPasses() throws {
        capturing = true
        let tester = StoreTester(F.store())
        try tester.act { (store: inout SimulatedStore) throws(StoreError) in
            try store.purchase(F.monthly.id, by: "alice")
        }
        tester.receive(.subscribed, .initialBuy, to: "alice", status: .active)
        tester.assertAccess(.gained, to: F.monthly.id, for: "alice")
        try tester.advance(by: .months(1))
        let renewal = tester.receive(.didRenew, to: "alice", status: .active)
        tester.finish()
        capturing = false
        XCTAssertEqual(captured, [])
        XCTAssertEqual(renewal?.transaction.transactionReason, "RENEWAL")
    }
}
