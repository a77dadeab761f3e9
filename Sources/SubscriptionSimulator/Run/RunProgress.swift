/// How far a long run has got, for a progress line (``RunPlan/progress``): the virtual instant it has reached (the
/// run sends nothing earlier any more), the scenario's customers, the notifications sent so far and, with delivery
/// (`--deliver`), the delivery attempts made and the notifications delivered so far. Reported every
/// few thousand notifications or steps, never on a wall clock (the library reads none): the front end throttles
/// what it shows (`simctl` updates its line on standard error a few times a second, and only on a terminal).
public struct RunProgress: Hashable, Sendable {
    public var instant: Instant
    public var customers: Int
    public var notifications: Int
    /// With delivery: the attempts made so far (chaos ones included); nil without.
    public var deliveryAttempts: Int?
    /// With delivery: the notifications delivered so far; nil without.
    public var delivered: Int?
    /// The last report: the run is over (a progress line is cleared).
    public var finished: Bool

    public init(
        instant: Instant, customers: Int, notifications: Int, deliveryAttempts: Int? = nil, delivered: Int? = nil,
        finished: Bool
    ) {
        self.instant = instant
        self.customers = customers
        self.notifications = notifications
        self.deliveryAttempts = deliveryAttempts
        self.delivered = delivered
        self.finished = finished
    }
}

/// Counts what a run sends and reports it (``RunProgress``) every `every` notifications or steps.
struct RunProgressMeter {
    let report: (RunProgress) -> Void
    var progress: RunProgress
    var steps = 0
    var reportedAt = 0
    let every: Int

    init(customers: Int, start: Instant, every: Int = 4096, report: @escaping (RunProgress) -> Void) {
        self.report = report
        self.every = every
        progress = RunProgress(instant: start, customers: customers, notifications: 0, finished: false)
    }

    /// After one step of the run: `sent` more notifications, nothing more to come before `reached`; with delivery,
    /// its attempts and delivered notifications so far.
    mutating func step(sent: Int, reached: Instant, delivery: (attempts: Int, delivered: Int)? = nil) {
        progress.notifications += sent
        if let delivery {
            progress.deliveryAttempts = delivery.attempts
            progress.delivered = delivery.delivered
        }
        if reached > progress.instant { progress.instant = reached }
        steps += 1
        if progress.notifications - reportedAt >= every || steps >= every {
            steps = 0
            reportedAt = progress.notifications
            report(progress)
        }
    }

    /// The last report.
    mutating func finish() {
        progress.finished = true
        report(progress)
    }
}
