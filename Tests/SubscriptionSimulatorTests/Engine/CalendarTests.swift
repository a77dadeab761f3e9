import Testing
@testable import SubscriptionSimulator

@Suite struct CalendarDurationSyntaxTests {
    @Test(arguments: [
        ("0", CalendarDuration.zero), ("500ms", .milliseconds(500)), ("90s", .seconds(90)), ("30m", .minutes(30)),
        ("1h", .hours(1)), ("16d", .days(16)), ("2w", .weeks(2)), ("P1M", .months(1)),
        ("P1M10D", CalendarDuration(months: 1, days: 10)), ("P1M60D", CalendarDuration(months: 1, days: 60)),
        ("PT1H", .hours(1)),
        (
            "P1Y2M3W4DT5H6M7.5S",
            CalendarDuration(
                years: 1, months: 2, weeks: 3, days: 4, hours: 5, minutes: 6, seconds: 7, milliseconds: 500)
        ),
    ])
    func parses(text: String, duration: CalendarDuration) {
        #expect(CalendarDurationSyntax.parse(text) == duration)
    }

    @Test(arguments: ["P", "PT", "1x", "P1H", "PT1D", "-1d", "P1M1Y", "1.5h", "", "h", "P1DT", "PT1.5M"])
    func rejects(text: String) {
        #expect(CalendarDurationSyntax.parse(text) == nil)
    }

    @Test(arguments: [("P1M", "P1M"), ("2w", "P2W"), ("90s", "PT90S"), ("0", "PT0S"), ("500ms", "PT0.5S")])
    func formatsAsISO(text: String, iso: String) {
        #expect(CalendarDurationSyntax.parse(text)!.description == iso)
    }

    @Test func parsesInstants() {
        #expect(
            CalendarDurationSyntax.parseInstant("2026-03-01T09:00:00Z")
                == CalendarMath.instant(year: 2026, month: 3, day: 1, hour: 9))
        #expect(
            CalendarDurationSyntax.parseInstant("2026-03-01T09:00:00.123Z")?.millisecondsSince1970 == 1_772_355_600_123)
        #expect(CalendarDurationSyntax.parseInstant("2026-03-01T09:00:00+00:00") != nil)
        for bad in [
            "2026-02-30T00:00:00Z", "2026-03-01 09:00:00Z", "2026-03-01T09:00:00", "2026-03-01T09:00:00+01:00",
            "2026-13-01T00:00:00Z",
        ] {
            #expect(CalendarDurationSyntax.parseInstant(bad) == nil, "\(bad)")
        }
    }
}

@Suite struct CalendarMathRuleTests {
    func day(_ y: Int, _ m: Int, _ d: Int) -> Instant { CalendarMath.instant(year: y, month: m, day: d, hour: 9) }

    @Test func yearsAndMonthsFirstThenDays() {
        #expect(day(2026, 1, 5).adding(CalendarDuration(months: 1, days: 40)) == day(2026, 3, 17))
    }

    @Test(arguments: [
        ((2026, 1, 31), (2026, 2, 28)), ((2028, 1, 31), (2028, 2, 29)), ((2026, 3, 31), (2026, 4, 30)),
        ((2026, 12, 15), (2027, 1, 15)),
    ])
    func monthEndIsClamped(from: (Int, Int, Int), to: (Int, Int, Int)) {
        #expect(day(from.0, from.1, from.2).adding(.months(1)) == day(to.0, to.1, to.2))
    }

    @Test func leapYears() {
        #expect(CalendarMath.isLeapYear(2000) && !CalendarMath.isLeapYear(1900) && CalendarMath.isLeapYear(2028))
        #expect(day(2028, 2, 29).adding(.years(1)) == day(2029, 2, 28))
    }

    @Test func civilDateRoundTripsOverFourHundredYears() {
        var instant = CalendarMath.instant(year: 1900, month: 1, day: 1)
        for _ in 0..<(400 * 12) {
            let c = CalendarMath.components(of: instant)
            #expect(CalendarMath.instant(year: c.year, month: c.month, day: c.day) == instant)
            instant = instant.adding(.months(1))
        }
    }

    @Test func formatsInstants() {
        #expect(day(2026, 3, 1).description == "2026-03-01T09:00:00Z")
        #expect(Instant(millisecondsSince1970: 1).description == "1970-01-01T00:00:00.001Z")
    }
}
