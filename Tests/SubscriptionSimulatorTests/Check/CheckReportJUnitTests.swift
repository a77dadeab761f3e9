import Testing

@testable import SubscriptionSimulator

/// The check's reports for CI, next to ``CheckReport`` (moved from the command layer with their writers, issue 44).
@Suite struct CheckReportJUnitTests {
    @Test func escapesJUnitText() {
        #expect(XMLText.escape("a<b & \"c\"\u{1}") == "a&lt;b &amp; &quot;c&quot;")
    }
}
