/// Seeded disturbances of delivery, for testing that a server is idempotent and order-independent. Every choice is
/// drawn from the delivery's ``RandomSource`` before the first attempt, in notification order, so the same
/// notifications, seed and chaos give the same deliveries whatever the server answers. All of it is simctl's
/// invention for tests [assumed]; Apple documents only that duplicates and out-of-order arrivals happen
/// (reference Appendix D).
public struct DeliveryChaos: Hashable, Sendable {
    /// The share (0 to 1) of notifications sent a second time after their successful delivery, as when the App
    /// Store missed the server's answer and retried.
    public var duplicateRate: Double
    /// How long after the successful attempt the duplicate is sent: the first retry delay, 1 hour [assumed].
    public var duplicateDelayMilliseconds: Int64
    /// Each notification's first attempt is moved later by a random time from 0 to this window (milliseconds of
    /// virtual time), never before an earlier notification of the same recipient: notifications of different
    /// recipients (independent ones, such as family members' copies, which Apple sends "in no specific order")
    /// arrive in a shuffled order.
    public var reorderWindowMilliseconds: Int64
    /// The first N attempts of a chosen notification fail without reaching the server (recorded as `OTHER`), so it
    /// arrives on its (N + 1)th attempt, after later notifications, as retries do in production.
    public var failFirstAttempts: Int
    /// The share (0 to 1) of notifications that ``failFirstAttempts`` applies to (1: every one).
    public var failRate: Double

    public init(
        duplicateRate: Double = 0, duplicateDelayMilliseconds: Int64 = 3_600_000, reorderWindowMilliseconds: Int64 = 0,
        failFirstAttempts: Int = 0, failRate: Double = 1
    ) {
        self.duplicateRate = duplicateRate
        self.duplicateDelayMilliseconds = duplicateDelayMilliseconds
        self.reorderWindowMilliseconds = reorderWindowMilliseconds
        self.failFirstAttempts = failFirstAttempts
        self.failRate = failRate
    }

    /// The longest reorder window: 365 days.
    public static let maximumReorderWindowMilliseconds: Int64 = 365 * 86_400_000
    /// The longest duplicate delay: 365 days.
    public static let maximumDuplicateDelayMilliseconds: Int64 = 365 * 86_400_000

    /// No chaos: every notification is sent once per attempt, at its instant.
    public static let none = DeliveryChaos()

    /// Why these values cannot be used, or nil.
    public var problem: String? {
        if !(0...1).contains(duplicateRate) { return "the duplicate rate must be from 0 to 1, found \(duplicateRate)" }
        if !(0...1).contains(failRate) { return "the fail rate must be from 0 to 1, found \(failRate)" }
        if duplicateDelayMilliseconds <= 0 || duplicateDelayMilliseconds > Self.maximumDuplicateDelayMilliseconds {
            return "the duplicate delay must be from 1 ms to 365 days, found \(duplicateDelayMilliseconds) ms"
        }
        if reorderWindowMilliseconds < 0 || reorderWindowMilliseconds > Self.maximumReorderWindowMilliseconds {
            return "the reorder window must be from 0 to 365 days, found \(reorderWindowMilliseconds) ms"
        }
        if failFirstAttempts < 0 { return "the number of failed first attempts cannot be negative" }
        return nil
    }

    /// What chaos does to one notification, drawn once.
    struct Plan: Hashable, Sendable {
        var delayMilliseconds: Int64 = 0
        var duplicate = false
        var failedAttempts = 0
    }

    /// Draws the plan of each notification in order; per notification, only for the disturbances that are on, in
    /// this order: reorder delay, duplicate, failure.
    func plans(count: Int, random: inout RandomSource) -> [Plan] {
        var plans: [Plan] = []
        plans.reserveCapacity(count)
        for _ in 0..<count {
            var plan = Plan()
            if reorderWindowMilliseconds > 0 {
                plan.delayMilliseconds = Int64(random.nextInt(in: 0...Int(reorderWindowMilliseconds)))
            }
            if duplicateRate > 0 { plan.duplicate = random.nextDouble() < duplicateRate }
            if failFirstAttempts > 0 {
                plan.failedAttempts = (failRate >= 1 || random.nextDouble() < failRate) ? failFirstAttempts : 0
            }
            plans.append(plan)
        }
        return plans
    }
}
