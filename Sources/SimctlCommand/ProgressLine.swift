import Foundation
import SubscriptionSimulator

/// One line of progress on standard error, rewritten in place (`\r`, then the text, then erase to the end of the
/// line) at most every `interval` of wall-clock time, and erased at the end. `simctl` makes one only when standard
/// error is a terminal (``forTerminal()``), so pipes, files and CI logs get nothing.
package final class ProgressLine {
    let write: (String) -> Void
    let clock: () -> UInt64
    let interval: UInt64
    let started: UInt64
    var shownAt: UInt64?

    /// `clock`: monotonic nanoseconds; `interval`: the least time between two updates.
    init(write: @escaping (String) -> Void, clock: @escaping () -> UInt64, interval: UInt64 = 250_000_000) {
        self.write = write
        self.clock = clock
        self.interval = interval
        started = clock()
    }

    /// A line on standard error when it is a terminal (`isatty(2)`), nil otherwise.
    static func forTerminal() -> ProgressLine? {
        guard isatty(2) == 1 else { return nil }
        return ProgressLine(
            write: { text in
                let bytes = Array(text.utf8)
                bytes.withUnsafeBytes { _ = Foundation.write(2, $0.baseAddress, $0.count) }
            },
            clock: { DispatchTime.now().uptimeNanoseconds })
    }

    /// Seconds since the line was made.
    var elapsed: Double { Double(clock() - started) / 1e9 }

    /// Shows `text()` unless the line was updated less than `interval` ago.
    func update(_ text: () -> String) {
        let now = clock()
        if let shownAt, now - shownAt < interval { return }
        shownAt = now
        write("\r" + text() + "\u{1B}[K")
    }

    /// Erases the line, if one was shown.
    func clear() {
        guard shownAt != nil else { return }
        write("\r\u{1B}[K")
        shownAt = nil
    }

    /// `1234567` as `1,234,567`.
    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }

    /// The text for a run (`simctl run`, also with `--deliver`).
    static func runText(_ progress: RunProgress, elapsed: Double) -> String {
        let rate = elapsed > 0 ? Int(Double(progress.notifications) / elapsed) : 0
        var text =
            "run: \(progress.instant), \(grouped(progress.customers)) customers, "
            + "\(grouped(progress.notifications)) notifications, \(grouped(rate))/s"
        if let attempts = progress.deliveryAttempts, let delivered = progress.delivered {
            text += ", \(grouped(delivered)) delivered in \(grouped(attempts)) attempts"
        }
        return text
    }

    /// Follows a run's reports (``RunPlan/progress``): updates, and clears at the end.
    func followRun(_ progress: RunProgress) {
        if progress.finished { return clear() }
        update { Self.runText(progress, elapsed: elapsed) }
    }
}
