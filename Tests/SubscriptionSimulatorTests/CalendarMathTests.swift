import Testing
@testable import SubscriptionSimulator

@Suite struct CalendarMathTests {
    @Test func monthsFirstThenDays() {
        let start = CalendarMath.instant(year: 2026, month: 1, day: 5)
        let d = CalendarDurationSyntax.parse("P1M40D")!
        #expect(start.adding(d) == CalendarMath.instant(year: 2026, month: 3, day: 17))
    }
}
