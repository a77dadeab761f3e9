import Testing

@testable import SubscriptionSimulator

/// Issue 10: every instant stays in years 1970 to 9999; arithmetic on instants and durations is checked.
@Suite struct InstantRangeTests {
    let start = CalendarMath.instant(year: 2026, month: 3, day: 1, hour: 9)

    @Test func theSupportedRangeIsYears1970To9999() {
        #expect(Instant.earliest.description == "1970-01-01T00:00:00Z")
        #expect(Instant.latest.description == "9999-12-31T23:59:59.999Z")
        #expect(CalendarDurationSyntax.parseInstant(Instant.latest.description) == Instant.latest)
        #expect(!Instant(millisecondsSince1970: -1).isSupported)
        #expect(!Instant.latest.adding(milliseconds: 1).isSupported)
    }

    @Test(arguments: ["P292471208Y", "P999999999Y", "P999999999M", "P999999999W", "PT999999999H", "999999999d"])
    func checkedAddingRefusesWhatLeavesTheRange(duration: String) {
        let parsed = CalendarDurationSyntax.parse(duration)!
        #expect(throws: InstantRangeError.self) { try start.checkedAdding(parsed) }
    }

    @Test func checkedAddingKeepsTheCalendarRule() throws {
        #expect(try start.checkedAdding(.months(1)) == start.adding(.months(1)))
        #expect(try Instant.latest.checkedAdding(.zero) == Instant.latest)
        #expect(throws: InstantRangeError.self) { try Instant.latest.checkedAdding(milliseconds: 1) }
        #expect(throws: InstantRangeError.self) { try Instant.earliest.checkedAdding(milliseconds: -1) }
    }

    @Test func overflowIsReportedNotTrapped() {
        // 292,471,208 years is past Int64 milliseconds: nil from the checked form, a saturated instant otherwise.
        let huge = CalendarDuration(years: 292_471_208)
        #expect(CalendarMath.checkedAdd(huge, to: start) == nil)
        #expect(start.adding(huge).millisecondsSince1970 == .max)
        #expect(start.adding(CalendarDuration(years: -292_471_208)).millisecondsSince1970 == .min)
        #expect(CalendarDuration(weeks: Int.max).checkedFixedMilliseconds == nil)
        #expect(CalendarDuration(weeks: Int.max).fixedMilliseconds == .max)
        #expect(Instant(millisecondsSince1970: .max).adding(milliseconds: 1).millisecondsSince1970 == .max)
    }

    @Test func aYearOutsideFourDigitsIsNeverPrintedAsABasicDate() {
        let year10000 = CalendarMath.instant(year: 10_000, month: 1, day: 1)
        #expect(year10000.description == "+10000-01-01T00:00:00Z")
        #expect(CalendarDurationSyntax.parseInstant(year10000.description) == nil)
        let beforeYear0 = CalendarMath.instant(year: -1, month: 1, day: 1)
        #expect(beforeYear0.description == "-00001-01-01T00:00:00Z")
    }

    @Test func theSchedulerRefusesInstantsOutsideTheRange() throws {
        var scheduler = EventScheduler<Int>(start: start)
        #expect(throws: SchedulingError.outsideSupportedRange(requested: Instant.latest.adding(milliseconds: 1))) {
            try scheduler.schedule(1, at: Instant.latest.adding(milliseconds: 1))
        }
        // Past the queue's own ±2^55 ms bound too: an error, not the queue's precondition.
        #expect(throws: SchedulingError.self) {
            try scheduler.schedule(1, at: Instant(millisecondsSince1970: 1 << 60))
        }
        try scheduler.schedule(1, at: Instant.latest)
        #expect(scheduler.pendingCount == 1)
    }
}
