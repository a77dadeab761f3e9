import Testing

@testable import SubscriptionSimulator

/// The scenario decoder's win-back conditions (`offers:` items), and its errors at file:line:column.
@Suite struct WinBackConditionsDecodingTests {
    func decode(_ offer: String) throws -> Scenario {
        try ScenarioDecoder(file: "winback.yaml").decode(
            """
            name: win-back conditions
            start: 2026-03-01T09:00:00Z
            app: { bundleId: com.example.nightsky }
            products:
              - id: com.example.monthly
                type: autoRenewable
                group: pro
                period: P1M
                price: 9.99
                offers:
                  - \(offer)
            timeline: []
            """)
    }

    @Test func winBackConditionsDecodeEveryField() throws {
        let scenario = try decode(
            "{ id: wb, type: winBack, mode: freeTrial, period: P1M, paidMonths: 3, monthsSinceLastSubscribed: "
                + "{ minimum: 1, maximum: 6 }, waitBetweenOffersMonths: 12, startDate: 2026-04-01T00:00:00Z, "
                + "endDate: 2026-12-31T00:00:00Z, priority: HIGH }")
        let conditions = scenario.catalog["com.example.monthly"]?.offers.first?.winBackConditions
        #expect(
            conditions
                == WinBackConditions(
                    paidMonths: 3, minimumMonthsSinceLastSubscribed: 1, maximumMonthsSinceLastSubscribed: 6,
                    waitBetweenOffersMonths: 12, startDate: CalendarMath.instant(year: 2026, month: 4, day: 1),
                    endDate: CalendarMath.instant(year: 2026, month: 12, day: 31), priority: .high))
    }

    @Test func winBackConditionsBadValuesNameTheirPlace() {
        #expect(
            throws: ScenarioError(
                file: "winback.yaml", location: SourceLocation(line: 11, column: 74),
                message: "expected `priority` HIGH or NORMAL, found 'URGENT'")
        ) {
            try decode("{ id: wb, type: winBack, mode: freeTrial, period: P1M, priority: URGENT }")
        }
        #expect(
            throws: ScenarioError(
                file: "winback.yaml", location: SourceLocation(line: 11, column: 79),
                message:
                    "win-back conditions (paidMonths, monthsSinceLastSubscribed, waitBetweenOffersMonths, startDate, endDate, priority) apply only to type winBack"
            )
        ) {
            try decode("{ id: p, type: promotional, mode: freeTrial, period: P1M, paidMonths: 2 }")
        }
        #expect(throws: ScenarioError.self) {
            try decode(
                "{ id: wb, type: winBack, mode: freeTrial, period: P1M, monthsSinceLastSubscribed: { minimum: 6, maximum: 1 } }"
            )
        }
        #expect(throws: ScenarioError.self) {
            try decode("{ id: wb, type: winBack, mode: freeTrial, period: P1M, paidMonths: 5000 }")
        }
    }
}
