/// A notification the backend refused (non-2xx) on every attempt Apple makes (docs/check.md, "Keep going"): a
/// finding of its own, since the App Store sent a valid notification.
public struct Refusal: Hashable, Sendable {
    public var notificationType: String
    public var subtype: String?
    public var notificationUUID: String
    /// The status of the last attempt's answer, and the start of its body.
    public var httpStatus: Int
    public var responseStart: String?
    /// The attempts made (Apple's production schedule: 6).
    public var attempts: Int
}

/// The class of a divergence (docs/check.md, "Keep going"): what went wrong, after which notification, caused by
/// which action. It names no id, customer, instant or seed, so the same bug gives the same class in every case and
/// every run, and two runs' summaries can be compared.
public struct FindingClass: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var kind: Divergence.Kind
    /// `TYPE/SUBTYPE` (or `TYPE`) of the notification: the last one delivered for the divergent
    /// `originalTransactionId`, or the refused one; `none` when nothing was delivered for it.
    public var notification: String
    /// The scenario action the notification followed from (``FindingClass/cause(of:to:at:in:)``), or
    /// `clock` when time alone sent it (a renewal, a billing retry, an expiry).
    public var cause: String
    /// A refusal's HTTP status.
    public var httpStatus: Int?

    /// `deniesAccess after DID_FAIL_TO_RENEW/GRACE_PERIOD (caused by the clock)`.
    public var description: String {
        let status = httpStatus.map { " HTTP \($0)" } ?? ""
        let what = kind == .refusesNotification ? "refuses \(notification)\(status)" : "after \(notification)"
        let by = cause == "clock" ? "the clock" : cause
        return "\(kind.rawValue): \(what) (caused by \(by))"
    }

    public static func < (a: FindingClass, b: FindingClass) -> Bool { a.description < b.description }

    /// The timeline action a notification sent at `instant` to `recipient` follows from (docs/check.md, "Every bug
    /// in one run"): `clock` for the kinds only time sends (a renewal or its failure, an expiry, a grace period's
    /// end); else the last entry at that instant whose action sends that kind (``senders``), the recipient's first,
    /// then any customer's (a family member's share follows the organizer's action); else the last entry at that instant for the
    /// recipient; else `clock`.
    public static func cause(
        of notificationType: String, to recipient: String?, at instant: Instant, in timeline: [TimelineEntry]
    ) -> String {
        if clockKinds.contains(notificationType) { return "clock" }
        let here = timeline.filter { $0.at == instant }
        if let senders = senders[notificationType] {
            let sending = here.filter { senders.contains($0.action.name) }
            if let own = sending.last(where: { $0.action.customer == recipient }) ?? sending.last {
                return own.action.name
            }
        }

        if let recipient, let own = here.last(where: { $0.action.customer == recipient }) { return own.action.name }
        return "clock"
    }

    /// Kinds the store sends only as time passes: a renewal, its failure (a billing failure shows at the renewal),
    /// an expiry, a grace period's end.
    static let clockKinds: Set<String> = ["DID_RENEW", "DID_FAIL_TO_RENEW", "EXPIRED", "GRACE_PERIOD_EXPIRED"]

    /// The actions that send each kind at their own instant (each action's table entry says which,
    /// ``ScenarioActionSpec/sends``).
    static let senders: [String: Set<String>] = {
        var senders: [String: Set<String>] = [:]
        for spec in ScenarioActionSpec.all {
            for kind in spec.sends { senders[kind, default: []].insert(spec.name) }
        }
        return senders
    }()
}

extension Divergence {
    /// This divergence's class (``FindingClass``).
    public var findingClass: FindingClass {
        FindingClass(kind: kind, notification: notification, cause: cause, httpStatus: refusal?.httpStatus)
    }
}

/// The store's truth for each `originalTransactionId` over a case, as it changed (``CheckedBackend/tolerance``): an
/// answer that matches the truth that held until less than the tolerance ago is tolerated, not a divergence.
struct TruthHistory {
    /// Per id: each truth with the instant it started to hold, oldest first.
    var changes: [String: [(since: Instant, access: OriginalTransactionAccess)]] = [:]

    mutating func note(_ access: OriginalTransactionAccess, at instant: Instant) {
        if let last = changes[access.originalTransactionId]?.last?.access, last == access { return }
        changes[access.originalTransactionId, default: []].append((instant, access))
    }

    /// Whether `answer` matches a truth about `id` that held at some instant within `tolerance` before `now`.
    func tolerates(_ answer: BackendAnswer?, about id: String, at now: Instant, tolerance: Int64) -> Bool {
        guard tolerance > 0, let list = changes[id] else { return false }
        // A truth held until the next one started: it counts when that next start is within the tolerance.
        var index = list.count - 2
        while index >= 0 {
            let ended = list[index + 1].since
            guard ended.milliseconds(to: now) <= tolerance else { return false }
            if Self.matches(answer, list[index].access) { return true }
            index -= 1
        }
        return false
    }

    static func matches(_ answer: BackendAnswer?, _ truth: OriginalTransactionAccess) -> Bool {
        let active = answer?.active ?? false
        guard active == truth.grantsAccess else { return false }
        if active, let product = answer?.productId { return product == truth.productId }
        return true
    }
}
