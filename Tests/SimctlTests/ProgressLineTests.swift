import Foundation
import Testing

@testable import SimctlCommand
@testable import SubscriptionSimulator

/// Issue 27: long work shows a progress line on standard error when it is a terminal, throttled, and cleared at the
/// end; in a pipe (tests, CI logs) nothing at all.
@Suite struct ProgressLineTests {
    final class Screen: @unchecked Sendable {
        var text = ""
        var now: UInt64 = 0
    }

    @Test func updatesAreThrottledAndTheLineIsClearedAtTheEnd() {
        let screen = Screen()
        let line = ProgressLine(write: { screen.text += $0 }, clock: { screen.now }, interval: 250_000_000)
        line.update { "a" }
        line.update { "b" }  // at once: not shown
        screen.now = 100_000_000
        line.update { "c" }  // 0.1 s later: not shown
        screen.now = 260_000_000
        line.update { "d" }
        line.clear()
        line.clear()  // cleared already: nothing more
        #expect(screen.text == "\ra\u{1B}[K\rd\u{1B}[K\r\u{1B}[K")
    }

    @Test func aLineNeverShownIsNotCleared() {
        let screen = Screen()
        let line = ProgressLine(write: { screen.text += $0 }, clock: { screen.now })
        line.clear()
        #expect(screen.text.isEmpty)
    }

    @Test func theRunLineSaysTheInstantCustomersNotificationsAndRate() {
        let progress = RunProgress(
            instant: Instant(millisecondsSince1970: 1_767_225_600_000), customers: 100_000,
            notifications: 1_234_567, finished: false)
        #expect(
            ProgressLine.runText(progress, elapsed: 2)
                == "run: 2026-01-01T00:00:00Z, 100,000 customers, 1,234,567 notifications, 617,283/s")
        var delivering = progress
        delivering.deliveryAttempts = 1_300_000
        delivering.delivered = 1_234_000
        #expect(
            ProgressLine.runText(delivering, elapsed: 2)
                == "run: 2026-01-01T00:00:00Z, 100,000 customers, 1,234,567 notifications, 617,283/s, "
                + "1,234,000 delivered in 1,300,000 attempts")
        #expect(ProgressLine.grouped(0) == "0" && ProgressLine.grouped(999) == "999")
        #expect(ProgressLine.grouped(1000) == "1,000" && ProgressLine.grouped(12_345_678) == "12,345,678")
    }

    @Test func aFinishedRunClearsItsLine() {
        let screen = Screen()
        let line = ProgressLine(write: { screen.text += $0 }, clock: { screen.now })
        let start = Instant(millisecondsSince1970: 1_767_225_600_000)
        line.followRun(RunProgress(instant: start, customers: 2, notifications: 5, finished: false))
        line.followRun(RunProgress(instant: start, customers: 2, notifications: 9, finished: true))
        #expect(screen.text.hasPrefix("\rrun: 2026-01-01T00:00:00Z, 2 customers, 5 notifications"))
        #expect(screen.text.hasSuffix("\u{1B}[K\r\u{1B}[K"))
    }

    @Test func nothingOnStandardErrorInAPipe() throws {
        // The binary with standard error a pipe: `run` (streamed, in every format), `population` and `--deliver`
        // print no progress.
        let scenario = SimctlProcess.packageRoot.appendingPathComponent("Scenarios/billing-retry-recovery-day-10.yaml")
            .path
        for format in ["timeline", "jsonl", "decoded"] {
            let result = try SimctlProcess.run(["run", scenario, "--format", format])
            #expect(result.status == 0)
            #expect(result.stderr.isEmpty, "\(format): \(result.stderr)")
            #expect(!result.stdout.isEmpty)
        }
        let population = try SimctlProcess.run(["population", "--subscribers", "2000", "--months", "6"])
        #expect(population.status == 0)
        #expect(population.stderr.isEmpty, "\(population.stderr)")
    }
}
