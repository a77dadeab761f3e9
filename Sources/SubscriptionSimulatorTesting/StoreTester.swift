import SubscriptionSimulator

/// Assertions on the notifications a ``SimulatedStore`` sends, in the spirit of TCA's `TestStore`: act, advance the
/// virtual clock, and `receive` each notification you expect. In the exhaustive mode (the default) every
/// notification must be received before the next action, `advance` or ``finish()``, otherwise the test fails
/// listing the ones not received, as `DID_RENEW to alice at 2026-04-01T09:00:00Z (status 1)`. Failures go to the
/// framework running the test (``FailureReporter/automatic``: Swift Testing or XCTest).
///
/// Notifications are received per customer, in the order that customer received them: the order between different
/// customers' notifications is not part of the assertion.
public final class StoreTester {
    /// Whether every notification must be received.
    public enum Exhaustivity: Sendable {
        /// Every notification sent must be received before the next action, `advance` or `finish()`.
        case on
        /// `receive` skips earlier notifications of the same customer to find a match; nothing else is checked.
        case off
    }

    /// The store under test. Read it freely; change it through ``act(_:fileID:filePath:line:column:)`` and
    /// `advance`, so that the assertions see every notification.
    public private(set) var store: SimulatedStore
    public var exhaustivity: Exhaustivity
    let reporter: FailureReporter
    /// Indices into `store.notifications` sent and not yet received or reported.
    private var pending: [Int] = []
    private var seen = 0
    private var finished = false
    private let createdAt: CallSite

    public init(
        _ store: SimulatedStore, exhaustivity: Exhaustivity = .on, reporter: FailureReporter = .automatic,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        self.store = store
        self.exhaustivity = exhaustivity
        self.reporter = reporter
        self.createdAt = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        collect()
    }

    /// In the exhaustive mode, a tester that goes away with notifications not received fails the test too.
    deinit {
        if !finished { checkNothingPending(before: "the end of the test", at: createdAt) }
    }

    /// Performs store actions (purchase, cancel, failBilling, refund, ...) at the store's `now` and returns the
    /// notifications they sent at once. Every earlier notification must have been received (exhaustive mode).
    @discardableResult
    public func act<Failure: Error>(
        _ action: (inout SimulatedStore) throws(Failure) -> Void,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) throws(Failure) -> [ReceivedNotification] {
        checkNothingPending(
            before: "this action", at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        try action(&store)
        return collect()
    }

    /// Moves the virtual clock forward by `duration`, running every event due, and returns the notifications sent.
    @discardableResult
    public func advance(
        by duration: CalendarDuration,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) throws(StoreError) -> [ReceivedNotification] {
        checkNothingPending(
            before: "advancing the clock", at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        try store.advance(by: duration)
        return collect()
    }

    /// Moves the virtual clock to `instant`, running every event due, and returns the notifications sent.
    @discardableResult
    public func advance(
        to instant: Instant,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) throws(StoreError) -> [ReceivedNotification] {
        checkNothingPending(
            before: "advancing the clock", at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        try store.advance(to: instant)
        return collect()
    }

    /// Asserts that `customer`'s next notification (exhaustive mode) or a later one (non-exhaustive) has this type
    /// and subtype, and, when given, this instant and status. Returns it, with its POST body and decoded fields,
    /// or nil after reporting a failure.
    @discardableResult
    public func receive(
        _ type: NotificationType, _ subtype: NotificationSubtype? = nil, to customer: String,
        at instant: Instant? = nil, status: SubscriptionPhase? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> ReceivedNotification? {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let expected =
            "\(type.rawValue)\(subtype.map { " / \($0.rawValue)" } ?? "") to \(customer)"
            + (instant.map { " at \($0)" } ?? "") + (status.map { " (status \($0.statusCode))" } ?? "")
        func matches(_ n: SentNotification) -> Bool {
            n.type == type && n.subtype == subtype && (instant == nil || n.instant == instant)
                && (status == nil || n.status == status)
        }
        let theirs = pending.enumerated().filter { store.notifications[$0.element].recipient == customer }
        guard let next = theirs.first else {
            reporter.report("expected \(expected), but \(customer) has no notification not yet received", site)
            return nil
        }
        switch exhaustivity {
        case .on:
            let found = store.notifications[next.element]
            pending.remove(at: next.offset)
            guard matches(found) else {
                reporter.report(
                    "expected \(expected), but \(customer)'s next notification is \(ReceivedNotification.describe(found))",
                    site)
                return nil
            }
            return ReceivedNotification(found, app: store.app)
        case .off:
            guard let hit = theirs.first(where: { matches(store.notifications[$0.element]) }) else {
                let list = theirs.map { ReceivedNotification.describe(store.notifications[$0.element]) }
                reporter.report(
                    "expected \(expected), but \(customer)'s notifications not yet received are: "
                        + list.joined(separator: "; "), site)
                return nil
            }
            let skipped = Set(theirs.prefix { $0.offset <= hit.offset }.map(\.element))
            pending.removeAll { skipped.contains($0) }
            return ReceivedNotification(store.notifications[hit.element], app: store.app)
        }
    }

    /// Asserts the subscription status of `productId` for `customer` now (or at `instant`), in the terms of the
    /// YAML `status:` expectation: `.active` is 1, `.expired` 2, `.billingRetry` 3, `.gracePeriod` 4, `.revoked` 5;
    /// nil when the customer never had it.
    public func assertStatus(
        _ expected: SubscriptionPhase?, of productId: String, for customer: String, at instant: Instant? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        let actual = store.status(of: productId, for: customer, at: instant)
        guard actual != expected else { return }
        func text(_ phase: SubscriptionPhase?) -> String {
            phase.map { "\($0.statusCode) (\($0))" } ?? "none (never subscribed)"
        }
        reporter.report(
            "\(customer)'s status for \(productId) at \(instant ?? store.now) is \(text(actual)); expected \(text(expected))",
            CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// The notifications sent and not yet received, oldest first.
    public var notReceived: [ReceivedNotification] {
        pending.map { ReceivedNotification(store.notifications[$0], app: store.app) }
    }

    /// Ends the test: in the exhaustive mode, every notification must have been received.
    public func finish(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        checkNothingPending(
            before: "finish()", at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        finished = true
    }

    /// Adds the notifications sent since the last call to `pending` and returns them.
    @discardableResult
    private func collect() -> [ReceivedNotification] {
        let fresh = Array(seen..<store.notifications.count)
        seen = store.notifications.count
        pending += fresh
        return fresh.map { ReceivedNotification(store.notifications[$0], app: store.app) }
    }

    private func checkNothingPending(before what: String, at site: CallSite) {
        guard exhaustivity == .on else {
            pending.removeAll()
            return
        }
        guard !pending.isEmpty else { return }
        let list = pending.map { "  " + ReceivedNotification.describe(store.notifications[$0]) }
        reporter.report(
            "\(pending.count) notification\(pending.count == 1 ? " was" : "s were") sent but not received before "
                + "\(what):\n" + list.joined(separator: "\n"), site)
        pending.removeAll()
    }
}
