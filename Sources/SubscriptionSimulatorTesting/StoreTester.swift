import SubscriptionSimulator

/// Assertions on what a ``SimulatedStore`` decides, in the spirit of TCA's `TestStore`: act, advance the virtual
/// clock, then `receive` each notification you expect and assert each change of access and of subscription status.
///
/// In the exhaustive mode (the default) everything the store did must be asserted before the next action,
/// `advance` or ``finish()``, otherwise the test fails listing what was not: every notification
/// (`DID_RENEW to alice for com.example.monthly at 2026-04-01T09:00:00Z (status 1)`), every change of access
/// (`bob lost access to com.example.monthly at 2026-04-17T09:00:00Z`) and every change of a subscription's status
/// (`bob's status for com.example.monthly became 3 (billingRetry), from 4 (gracePeriod), at ...`). ``Coverage``
/// narrows what must be asserted; ``Exhaustivity/off`` checks only what is asserted and notes the rest as skipped.
/// Failures go to the framework running the test (``FailureReporter/automatic``: Swift Testing or XCTest).
///
/// Notifications are received per customer, in the order that customer received them, and changes asserted per
/// customer and product in the order they happened: the order between different customers is not asserted.
public final class StoreTester {
    /// Whether everything covered must be asserted (TCA's `Exhaustivity`).
    public enum Exhaustivity: Equatable, Sendable {
        /// Every notification and change covered (``Coverage``) must be asserted before the next action,
        /// `advance` or `finish()`.
        case on
        /// Only what is asserted is checked: `receive` and ``assertAccess(_:to:for:at:fileID:filePath:line:column:)``
        /// skip a customer's earlier notifications and changes to find a match. With `showSkippedAssertions`, what
        /// was not asserted is noted (``FailureReporter/note``: a known issue under Swift Testing, which does not
        /// fail the test) at the next action, `advance` or `finish()`, and is always in ``skipped``.
        case off(showSkippedAssertions: Bool)

        /// Non-exhaustive, noting what was skipped.
        public static let off = Exhaustivity.off(showSkippedAssertions: true)
    }

    /// What the exhaustive mode requires to be asserted.
    public struct Coverage: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Every notification sent (`receive`).
        public static let notifications = Coverage(rawValue: 1 << 0)
        /// Every change of a customer's access to a product: gained or lost (``assertAccess(_:to:for:at:fileID:filePath:line:column:)``,
        /// or ``assertEntitlements(_:for:fileID:filePath:line:column:)`` for all of one customer's at once).
        public static let access = Coverage(rawValue: 1 << 1)
        /// Every change of a customer's subscription status for a product (`receive(..., status:)` of the
        /// notification that carried it, or ``assertStatus(_:of:for:at:fileID:filePath:line:column:)``).
        public static let status = Coverage(rawValue: 1 << 2)
        /// All three: the default.
        public static let all: Coverage = [.notifications, .access, .status]
    }

    /// Gained or lost, for ``assertAccess(_:to:for:at:fileID:filePath:line:column:)``.
    public enum Access: Hashable, Sendable {
        case gained
        case lost
    }

    /// A change the store made that a backend decides on: a customer gained or lost access to a product
    /// (``SimulatedStore/entitlements(for:)``), or the status of a customer's subscription to a product changed
    /// (``SimulatedStore/status(of:for:at:)``: the status its notifications carry).
    public struct Change: Hashable, Sendable, CustomStringConvertible {
        public enum Kind: Hashable, Sendable {
            case access(Access)
            case status(from: SubscriptionPhase?, to: SubscriptionPhase)
        }
        public var customer: String
        public var productId: String
        public var instant: Instant
        public var kind: Kind

        /// `bob gained access to com.example.monthly at 2026-03-01T09:00:00Z`, `bob's status for
        /// com.example.monthly became 4 (gracePeriod), from 1 (active), at 2026-04-01T09:00:00Z`.
        public var description: String {
            switch kind {
            case .access(let access):
                return "\(customer) \(access == .gained ? "gained" : "lost") access to \(productId) at \(instant)"
            case .status(let from, let to):
                return "\(customer)'s status for \(productId) became \(Self.text(to)), from "
                    + (from.map(Self.text) ?? "none") + ", at \(instant)"
            }
        }

        static func text(_ phase: SubscriptionPhase) -> String { "\(phase.statusCode) (\(phase))" }
    }

    /// The store under test. Read it freely; change it through ``act(_:fileID:filePath:line:column:)`` and
    /// `advance`, so that the assertions see everything it does.
    public private(set) var store: SimulatedStore
    public var exhaustivity: Exhaustivity
    /// What the exhaustive mode requires to be asserted (default ``Coverage/all``).
    public let coverage: Coverage
    let reporter: FailureReporter
    /// Indices into `store.notifications` sent and not yet received or reported.
    private var pending: [Int] = []
    /// Changes not yet asserted or reported; a status change keeps the index of the notification that carried it.
    private var pendingChanges: [(change: Change, notification: Int?)] = []
    /// Skipped by a non-exhaustive `receive` or `assertAccess` since the last checkpoint.
    private var skippedNow: [String] = []
    /// What the non-exhaustive mode let pass without an assertion, in the words of the exhaustive mode's failures.
    public private(set) var skipped: [String] = []
    private var seen = 0
    private var seenChanges = 0
    private var access: [String: [String]] = [:]
    private var statuses: [String: [String: SubscriptionPhase]] = [:]
    private var finished = false
    private let createdAt: CallSite

    /// Everything the store already holds counts as done by the first action: assert it (or `finish()`) like the
    /// rest.
    public init(
        _ store: SimulatedStore, exhaustivity: Exhaustivity = .on, coverage: Coverage = .all,
        reporter: FailureReporter = .automatic,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        self.store = store
        self.exhaustivity = exhaustivity
        self.coverage = coverage
        self.reporter = reporter
        self.createdAt = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        collect()
    }

    /// In the exhaustive mode, a tester that goes away with something not asserted fails the test too.
    deinit {
        if !finished { checkpoint(before: "the end of the test", at: createdAt) }
    }

    /// Performs store actions (purchase, cancel, failBilling, refund, ...) at the store's `now` and returns the
    /// notifications they sent at once. Everything earlier must have been asserted (exhaustive mode).
    @discardableResult
    public func act<Failure: Error>(
        _ action: (inout SimulatedStore) throws(Failure) -> Void,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) throws(Failure) -> [ReceivedNotification] {
        checkpoint(before: "this action", at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        defer { collect() }
        let before = store.notifications.count
        try action(&store)
        return store.notifications[before...].map { ReceivedNotification($0, app: store.app) }
    }

    /// Moves the virtual clock forward by `duration`, running every event due, and returns the notifications sent.
    @discardableResult
    public func advance(
        by duration: CalendarDuration,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) throws(StoreError) -> [ReceivedNotification] {
        checkpoint(
            before: "advancing the clock", at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        defer { collect() }
        let before = store.notifications.count
        try store.advance(by: duration)
        return store.notifications[before...].map { ReceivedNotification($0, app: store.app) }
    }

    /// Moves the virtual clock to `instant`, running every event due, and returns the notifications sent.
    @discardableResult
    public func advance(
        to instant: Instant,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) throws(StoreError) -> [ReceivedNotification] {
        checkpoint(
            before: "advancing the clock", at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        defer { collect() }
        let before = store.notifications.count
        try store.advance(to: instant)
        return store.notifications[before...].map { ReceivedNotification($0, app: store.app) }
    }

    /// Asserts that `customer`'s next notification (exhaustive mode) or a later one (non-exhaustive) has this type
    /// and subtype, and, when given, this product, instant and status. Naming `status` also asserts the change of
    /// status the notification carries, if it carries one. Returns the notification, with its POST body and
    /// decoded fields, or nil after reporting a failure.
    @discardableResult
    public func receive(
        _ type: NotificationType, _ subtype: NotificationSubtype? = nil, to customer: String,
        product productId: String? = nil, at instant: Instant? = nil, status: SubscriptionPhase? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> ReceivedNotification? {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let expected =
            "\(type.rawValue)\(subtype.map { " / \($0.rawValue)" } ?? "") to \(customer)"
            + (productId.map { " for \($0)" } ?? "") + (instant.map { " at \($0)" } ?? "")
            + (status.map { " (status \($0.statusCode))" } ?? "")
        func matches(_ n: SentNotification) -> Bool {
            n.type == type && n.subtype == subtype && (productId == nil || n.transaction?.productId == productId)
                && (instant == nil || n.instant == instant) && (status == nil || n.status == status)
        }
        let theirs = pending.enumerated().filter { store.notifications[$0.element].recipient == customer }
        guard let next = theirs.first else {
            reporter.report("expected \(expected), but \(customer) has no notification not yet received", site)
            return nil
        }
        let found: Int
        if exhaustivity == .on {
            pending.remove(at: next.offset)
            guard matches(store.notifications[next.element]) else {
                reporter.report(
                    "expected \(expected), but \(customer)'s next notification is "
                        + ReceivedNotification.describe(store.notifications[next.element]), site)
                return nil
            }
            found = next.element
        } else {
            guard let hit = theirs.first(where: { matches(store.notifications[$0.element]) }) else {
                let list = theirs.map { ReceivedNotification.describe(store.notifications[$0.element]) }
                reporter.report(
                    "expected \(expected), but \(customer)'s notifications not yet received are: "
                        + list.joined(separator: "; "), site)
                return nil
            }
            let passed = theirs.prefix { $0.offset < hit.offset }.map(\.element)
            noteSkipped(passed.map { ReceivedNotification.describe(store.notifications[$0]) })
            let done = Set(passed + [hit.element])
            pending.removeAll { done.contains($0) }
            found = hit.element
        }
        if status != nil { pendingChanges.removeAll { $0.notification == found } }
        return ReceivedNotification(store.notifications[found], app: store.app)
    }

    /// Asserts that `customer` gained or lost access to `productId` (at `instant`, when given): in the exhaustive
    /// mode, the customer's next change of access to that product not yet asserted; in the non-exhaustive mode, any
    /// later one (earlier ones are skipped).
    public func assertAccess(
        _ expected: Access, to productId: String, for customer: String, at instant: Instant? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
        let wanted =
            "\(customer) \(expected == .gained ? "gained" : "lost") access to \(productId)"
            + (instant.map { " at \($0)" } ?? "")
        let theirs = pendingChanges.indices.filter {
            let change = pendingChanges[$0].change
            if case .access = change.kind { return change.customer == customer && change.productId == productId }
            return false
        }
        func matches(_ index: Int) -> Bool {
            let change = pendingChanges[index].change
            return change.kind == .access(expected) && (instant == nil || change.instant == instant)
        }
        guard let next = theirs.first else {
            let now = store.entitlements(for: customer)
            reporter.report(
                "expected \(wanted), but no change of \(customer)'s access to \(productId) is waiting to be asserted "
                    + "(\(customer) has access to \(now.isEmpty ? "nothing" : now.joined(separator: ", ")) now)", site)
            return
        }
        if exhaustivity == .on {
            let matched = matches(next)
            let change = pendingChanges.remove(at: next).change
            if !matched {
                reporter.report(
                    "expected \(wanted), but the next change of \(customer)'s access to \(productId) is: \(change)",
                    site)
            }
            return
        }
        guard let hit = theirs.first(where: matches) else {
            reporter.report(
                "expected \(wanted), but the changes not yet asserted are: "
                    + theirs.map { pendingChanges[$0].change.description }.joined(separator: "; "), site)
            return
        }
        let passed = theirs.filter { $0 < hit }
        noteSkipped(passed.map { pendingChanges[$0].change.description })
        let done = Set(passed + [hit])
        pendingChanges = pendingChanges.indices.filter { !done.contains($0) }.map { pendingChanges[$0] }
    }

    /// Asserts what `customer` has access to now (in any order), like a `TestStore` state assertion: every change of
    /// that customer's access not yet asserted counts as asserted by it.
    public func assertEntitlements(
        _ expected: [String], for customer: String,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        pendingChanges.removeAll {
            if case .access = $0.change.kind { return $0.change.customer == customer }
            return false
        }
        let actual = store.entitlements(for: customer)
        guard actual.sorted() != expected.sorted() else { return }
        func text(_ products: [String]) -> String {
            products.isEmpty ? "nothing" : products.sorted().joined(separator: ", ")
        }
        reporter.report(
            "\(customer) has access to \(text(actual)) at \(store.now); expected \(text(expected))",
            CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Asserts the subscription status of `productId` for `customer` now (or at `instant`), in the terms of the
    /// YAML `status:` expectation: `.active` is 1, `.expired` 2, `.billingRetry` 3, `.gracePeriod` 4, `.revoked` 5;
    /// nil when the customer never had it. Asserting the status now asserts every change of it not yet asserted.
    public func assertStatus(
        _ expected: SubscriptionPhase?, of productId: String, for customer: String, at instant: Instant? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        if instant == nil || instant == store.now {
            pendingChanges.removeAll {
                if case .status = $0.change.kind {
                    return $0.change.customer == customer && $0.change.productId == productId
                }
                return false
            }
        }
        let actual = store.status(of: productId, for: customer, at: instant)
        guard actual != expected else { return }
        func text(_ phase: SubscriptionPhase?) -> String { phase.map(Change.text) ?? "none (never subscribed)" }
        reporter.report(
            "\(customer)'s status for \(productId) at \(instant ?? store.now) is \(text(actual)); expected \(text(expected))",
            CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// The notifications sent and not yet received, oldest first.
    public var notReceived: [ReceivedNotification] {
        pending.map { ReceivedNotification(store.notifications[$0], app: store.app) }
    }

    /// The changes of access and status (as ``coverage`` tracks them) not yet asserted, oldest first.
    public var notAsserted: [Change] {
        pendingChanges.map(\.change).enumerated().sorted {
            ($0.element.instant, $0.offset) < ($1.element.instant, $1.offset)
        }
        .map(\.element)
    }

    /// Ends the test: in the exhaustive mode, everything must have been asserted.
    public func finish(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        checkpoint(before: "finish()", at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
        finished = true
    }

    /// Adds what the store did since the last call to the pending notifications and changes.
    private func collect() {
        let notifications = store.notifications
        for index in seen..<notifications.count {
            let n = notifications[index]
            if coverage.contains(.notifications) { pending.append(index) }
            guard let customer = n.recipient, let productId = n.transaction?.productId, let status = n.status else {
                continue
            }
            let before = statuses[customer]?[productId]
            guard before != status else { continue }
            statuses[customer, default: [:]][productId] = status
            if coverage.contains(.status) {
                pendingChanges.append(
                    (
                        Change(
                            customer: customer, productId: productId, instant: n.instant,
                            kind: .status(from: before, to: status)), index
                    ))
            }
        }
        seen = notifications.count
        let changes = store.entitlementChanges
        for change in changes[seenChanges...] {
            let before = access[change.customer] ?? []
            access[change.customer] = change.products
            guard coverage.contains(.access) else { continue }
            for product in before where !change.products.contains(product) {
                pendingChanges.append(
                    (
                        Change(
                            customer: change.customer, productId: product, instant: change.instant,
                            kind: .access(.lost)), nil
                    ))
            }
            for product in change.products where !before.contains(product) {
                pendingChanges.append(
                    (
                        Change(
                            customer: change.customer, productId: product, instant: change.instant,
                            kind: .access(.gained)), nil
                    ))
            }
        }
        seenChanges = changes.count
    }

    /// Skipped by a non-exhaustive `receive` or `assertAccess`: in ``skipped`` now, noted at the next checkpoint.
    private func noteSkipped(_ descriptions: [String]) {
        skippedNow += descriptions
        skipped += descriptions
    }

    private func checkpoint(before what: String, at site: CallSite) {
        let notifications = pending.map { ReceivedNotification.describe(store.notifications[$0]) }
        let changes = notAsserted.map(\.description)
        pending.removeAll()
        pendingChanges.removeAll()
        switch exhaustivity {
        case .on:
            if !notifications.isEmpty {
                reporter.report(
                    "\(notifications.count) notification\(notifications.count == 1 ? " was" : "s were") sent but "
                        + "not received before \(what):\n" + notifications.map { "  " + $0 }.joined(separator: "\n"),
                    site)
            }
            if !changes.isEmpty {
                reporter.report(
                    "\(changes.count) change\(changes.count == 1 ? "" : "s") of access or status "
                        + "\(changes.count == 1 ? "was" : "were") not asserted before \(what):\n"
                        + changes.map { "  " + $0 }.joined(separator: "\n"), site)
            }
        case .off(let show):
            skipped += notifications + changes
            let passed = skippedNow + notifications + changes
            skippedNow.removeAll()
            if show && !passed.isEmpty {
                reporter.note(
                    "\(passed.count) assertion\(passed.count == 1 ? " was" : "s were") skipped before \(what) "
                        + "(exhaustivity is off):\n" + passed.map { "  " + $0 }.joined(separator: "\n"), site)
            }
        }
    }
}
