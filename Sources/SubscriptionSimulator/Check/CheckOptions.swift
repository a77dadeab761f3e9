/// The delivery disturbances `simctl check` writes into each case it generates (docs/check.md, "Delivery"): which
/// notifications are sent twice, and which fail their first attempts so that they arrive on a retry, after newer
/// ones. Each becomes a ``DeliveryFault`` of the case's `delivery:` block, so a counterexample carries exactly the
/// faults it needs. A failure is never given to a notification that shares its `signedDate` with another one to the
/// same recipient: no backend could order those. All of it is simctl's invention for tests [assumed]; Apple
/// documents only that duplicates and late deliveries happen.
public struct CheckChaos: Hashable, Sendable {
    /// The share (0 to 1) of notifications sent a second time, an hour after their successful delivery.
    public var duplicateRate: Double
    /// The share (0 to 1) of notifications whose first attempts fail.
    public var failureRate: Double
    /// How many first attempts such a notification fails at most (drawn from 1 to this). With Apple's production
    /// retry schedule, 1 failure delivers it an hour late, 2 failures 13 hours late.
    public var maximumFailedAttempts: Int

    public init(duplicateRate: Double = 0.2, failureRate: Double = 0.2, maximumFailedAttempts: Int = 2) {
        self.duplicateRate = duplicateRate
        self.failureRate = failureRate
        self.maximumFailedAttempts = maximumFailedAttempts
    }

    /// The default: duplicates and failures, each for a fifth of the notifications.
    public static let standard = CheckChaos()
    /// No disturbance: every notification arrives once, at its instant.
    public static let none = CheckChaos(duplicateRate: 0, failureRate: 0, maximumFailedAttempts: 0)

    /// The same without duplicates (`--no-duplicates` of the command line to come).
    public var withoutDuplicates: CheckChaos {
        var chaos = self
        chaos.duplicateRate = 0
        return chaos
    }

    /// The same without failed attempts (`--no-retries`).
    public var withoutFailures: CheckChaos {
        var chaos = self
        chaos.failureRate = 0
        return chaos
    }

    /// Why these values cannot be used, or nil.
    public var problem: String? {
        if !(0...1).contains(duplicateRate) { return "the duplicate rate must be from 0 to 1, found \(duplicateRate)" }
        if !(0...1).contains(failureRate) { return "the failure rate must be from 0 to 1, found \(failureRate)" }
        if failureRate > 0 && !(1...5).contains(maximumFailedAttempts) {
            return "the failed attempts must be from 1 to 5 (the App Store makes 6 attempts), found "
                + "\(maximumFailedAttempts)"
        }
        return nil
    }
}

/// How `simctl check` runs: how many cases, from which seed, with which delivery disturbances.
public struct CheckOptions: Hashable, Sendable {
    /// How many cases to generate and run (each from the scenario's header and its timeline as a prefix).
    public var cases: Int
    /// Seeds the generation: the same scenario, seed and options give the same cases and the same report.
    public var seed: UInt64
    public var chaos: CheckChaos
    /// How many actions a case adds after the scenario's own timeline, at least and at most.
    public var actions: ClosedRange<Int>
    /// Whether to shrink the first divergence (on by default).
    public var shrinks: Bool
    /// The first identity epoch (rule ids-change-with-the-epoch, Engine/IdentifierSource.swift): case `i` (from 0)
    /// runs at epoch `epoch + i` and shrinking candidates at the epochs after the last case's, so no two runs share an
    /// `originalTransactionId`, a `transactionId`, an `appTransactionId` or a `notificationUUID`.
    public var epoch: UInt32
    /// `simctl check --keep-going`: run every case, group the divergences into classes (``FindingClass``) and shrink
    /// one per class; false stops at the first divergence.
    public var keepGoing = false
    /// The actions generation may draw (`--actions`, `--without`, `--weights`); nil: the whole vocabulary with the
    /// action table's weights (the cases every seed always drew).
    public var vocabulary: VocabularyChoice?

    public init(
        cases: Int = 100, seed: UInt64 = 0, chaos: CheckChaos = .standard, actions: ClosedRange<Int> = 4...14,
        shrinks: Bool = true, epoch: UInt32 = 0
    ) {
        self.cases = cases
        self.seed = seed
        self.chaos = chaos
        self.actions = actions
        self.shrinks = shrinks
        self.epoch = epoch
    }

    /// The epoch case `index` (from 0) runs at.
    public func epoch(ofCase index: Int) -> UInt32 { epoch &+ UInt32(truncatingIfNeeded: index) }

    /// Why these options cannot be used, or nil.
    public var problem: String? {
        if cases > 1_000_000 { return "the number of cases must be at most 1,000,000, found \(cases)" }
        if cases < 1 { return "the number of cases must be 1 or more, found \(cases)" }
        if actions.lowerBound < 0 || actions.upperBound > 1000 {
            return "the actions per case must be from 0 to 1000, found \(actions.lowerBound)...\(actions.upperBound)"
        }
        return chaos.problem
    }
}

/// A backend's answer to "what does this `originalTransactionId` give access to now?" (the contract of
/// docs/check.md: JSON `{"active": true, "productId": "..."}`; a 404, here `nil`, means unknown: not active).
public struct BackendAnswer: Hashable, Sendable, CustomStringConvertible {
    public var active: Bool
    /// The product that grants access now; optional in the contract (compared only when given).
    public var productId: String?

    public init(active: Bool, productId: String? = nil) {
        self.active = active
        self.productId = productId
    }

    /// `active, product X`, `active`, or `not active`.
    public var description: String {
        active ? "active" + (productId.map { ", product \($0)" } ?? "") : "not active"
    }
}

/// The backend under test, in process: it receives each delivery attempt and answers entitlement queries. The
/// command line wraps an HTTP backend in one of these; Swift backends pass closures.
public struct CheckedBackend {
    /// Receives one delivery attempt (the App Store's POST body in `request.body`) and says how it went.
    public var deliver: (DeliveryRequest) throws -> DeliveryOutcome
    /// What the backend says an `originalTransactionId` gives now; nil: unknown (counts as not active). A thrown
    /// error means the backend cannot be judged.
    public var entitlement: (String) throws -> BackendAnswer?
    /// Called at each checkpoint before the queries: a backend that processes asynchronously settles here.
    public var settle: () -> Void
    /// Sees the running case's store at each instant reached, before that instant's deliveries (with the case's
    /// identity epoch): `simctl check --port` serves the App Store Server API from it, so a backend that calls the
    /// API back during a delivery reads the state that includes the notification it handles.
    public var observe: (_ store: SimulatedStore, _ epoch: UInt32) -> Void = { _, _ in }
    /// Attempts in flight at once (`--deliver-connections`); above 1, ``deliverBatch`` receives them together.
    public var connections = 1
    /// Makes up to ``connections`` attempts at once (nil: ``deliver``, one at a time).
    public var deliverBatch: (([DeliveryRequest]) -> [DeliveryOutcome])?
    /// Signs the notifications delivered to this backend (`simctl check --ca-seed` / `--signing-chain`); nil: the
    /// case's environment's default (``SimulatedEnvironment/defaultSigner``), as `simctl run`.
    public var signer: (any PayloadSigner)?
    /// Deliberate refusals (`simctl check --accept-status KIND=CODE`): per `notificationType` (or `TYPE/SUBTYPE`),
    /// the statuses the backend may answer with; an empty set allows any non-2xx. Such an answer counts as delivered
    /// and the refusal is not judged (``CaseResult/acceptedRefusals`` counts them).
    public var acceptedRefusals: [String: Set<Int>] = [:]
    /// Asks the entitlement query at a virtual instant (the checkpoint's, `{now}` of `simctl check --entitlements`);
    /// when set, it is used in place of ``entitlement``.
    public var entitlementAt: ((String, Instant) throws -> BackendAnswer?)?
    /// `simctl check --tolerance D`: an answer that matches the truth that held until less than this many
    /// milliseconds earlier is tolerated (counted in ``CaseResult/tolerated``), not a divergence. 0: exact.
    public var toleranceMilliseconds: Int64 = 0

    /// Whether an answer with `status` to `item` is a refusal ``acceptedRefusals`` allows.
    func accepts(_ status: Int?, for item: DeliveryItem) -> Bool {
        guard let status, !(200...299).contains(status) else { return false }
        let keys = [item.notificationType + (item.subtype.map { "/" + $0 } ?? ""), item.notificationType]
        for key in keys {
            if let codes = acceptedRefusals[key], codes.isEmpty || codes.contains(status) { return true }
        }
        return false
    }

    public init(
        deliver: @escaping (DeliveryRequest) throws -> DeliveryOutcome,
        entitlement: @escaping (String) throws -> BackendAnswer?, settle: @escaping () -> Void = {}
    ) {
        self.deliver = deliver
        self.entitlement = entitlement
        self.settle = settle
    }
}
