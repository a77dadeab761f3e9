/// When the App Store tries a notification again after a failed attempt.
///
/// Delays count from the previous attempt, on the virtual clock; a notification gets at most
/// ``maximumAttempts`` attempts (the first one and one per delay).
public struct RetrySchedule: Hashable, Sendable {
    /// Milliseconds between attempt `k` and attempt `k + 1` (index `k - 1`).
    public var delays: [Int64]

    public init(delays: [Int64]) {
        precondition(delays.allSatisfy { $0 > 0 }, "retry delays must be positive")
        self.delays = delays
    }

    /// App Store Server Notifications V2 in production: retried 5 times, 1, 12, 24, 48 and 72 hours after the
    /// previous attempt (attempts at +0 h, +1 h, +13 h, +37 h, +85 h, +157 h). Reference §6.1; Apple,
    /// "Responding to App Store Server Notifications".
    public static let production = RetrySchedule(delays: [1, 12, 24, 48, 72].map { Int64($0) * 3_600_000 })

    /// The sandbox: one attempt, no retries (reference §6.1; Apple, "Responding to App Store Server Notifications").
    public static let sandbox = RetrySchedule(delays: [])

    /// Attempts per notification, the first included (6 in production; Apple's notification history keeps at most
    /// 6 `sendAttempts`).
    public var maximumAttempts: Int { delays.count + 1 }

    /// The wait after failed attempt `attempt` (1-based) before the next one; nil when that was the last.
    public func delay(afterAttempt attempt: Int) -> Int64? {
        attempt >= 1 && attempt <= delays.count ? delays[attempt - 1] : nil
    }
}

/// Which of Apple's environments the delivery behaves like.
public enum DeliveryMode: String, CaseIterable, Hashable, Sendable {
    /// Retries on ``RetrySchedule/production``.
    case production
    /// One attempt only (``RetrySchedule/sandbox``).
    case sandbox

    public var schedule: RetrySchedule {
        switch self {
        case .production: return .production
        case .sandbox: return .sandbox
        }
    }
}
