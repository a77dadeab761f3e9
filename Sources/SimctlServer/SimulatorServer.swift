import Foundation
import SubscriptionSimulator

/// What `simctl serve` serves.
package struct ServerConfiguration: Sendable {
    /// The starting point: catalogue, app, family, customers, seed, and the timeline applied as the clock advances.
    package var scenario: Scenario
    /// Signs every JWS the server answers or delivers; nil: the environment's default signer (as `simctl run`).
    package var signer: (any PayloadSigner)?
    package var deliveryMode: DeliveryMode
    package var chaos: DeliveryChaos
    package var token: BearerTokenPolicy
    /// The store's epoch at start (`--epoch`): its identities (rule ids-change-with-the-epoch,
    /// `Engine/IdentifierSource.swift`); 0 gives the scenario's usual ids and UUIDs.
    package var epoch: UInt32
    /// Set by `simctl check --port`: every request that would change the store is refused with this reason (the
    /// store is the running case's, moved by the check alone; docs/check.md, "The App Store Server API").
    package var readOnlyReason: String?
    /// Browser safety (`BrowserSafety.swift`; docs/server.md, "Browser safety"): the address the server listens on
    /// (`--host`) and the names given with `--allow-host`, which `Host` may carry on the dashboard and `/simctl/`.
    package var listenHost = "127.0.0.1"
    package var allowedHosts: [String] = []
    /// Makes Retention Messaging's realtime and performance-test requests (`simctl serve`: HTTP); nil: none are made
    /// (every view gets the default message).
    package var realtime: (any RealtimeTransport)?
    /// The realtime URL at start (`--realtime-url`), as if configured with Configure Realtime URL.
    package var realtimeURL: String?
    /// The performance test's parameters (`PerformanceTestConfig`).
    package var performanceTest = PerformanceTestConfig()

    package init(
        scenario: Scenario, signer: (any PayloadSigner)? = nil, deliveryMode: DeliveryMode = .production,
        chaos: DeliveryChaos = .none, token: BearerTokenPolicy? = nil, epoch: UInt32 = 0
    ) {
        self.scenario = scenario
        self.signer = signer
        self.deliveryMode = deliveryMode
        self.chaos = chaos
        self.token = token ?? BearerTokenPolicy(bundleId: scenario.app.bundleId)
        self.epoch = epoch
    }
}

/// One notification the server has sent: its delivery item (POST body and `signedPayload`), and its position in the
/// delivery (the same as in ``ServerState/records``).
struct SentRecord: Sendable {
    var item: DeliveryItem
    var type: NotificationType
    var subtype: NotificationSubtype?
    /// The `testNotificationToken` of a `TEST` notification; nil for the others.
    var testToken: String?

    /// The JWS the App Store POSTs, as the delivery item carries it.
    var signedPayload: String { item.signedPayload }
}

/// Everything the server holds; changed only under the server's lock.
struct ServerState: Sendable {
    var store: SimulatedStore
    /// The scenario's timeline, as far as the clock has gone (the one driver, shared with `simctl run`).
    var driver: TimelineDriver
    /// The store's epoch (its identities); reset moves to another.
    var epoch: UInt32
    /// Store notifications already encoded into `records`.
    var encoded = 0
    var records: [SentRecord] = []
    var testTokens: [String: Int] = [:]
    var delivery: NotificationDelivery?
    /// Notifications sent again by hand (`POST /simctl/v1/notifications/{notificationUUID}/resend`), in order.
    var resends: [ResendRecord] = []
    /// Bumped by every change; answers cached for one version only.
    var version = 0
    /// The Retention Messaging API's configuration (images, messages, defaults, realtime URL, performance tests).
    var retention: RetentionMessaging
    /// The performance test being run, if any.
    var runningPerformanceTest: RunningPerformanceTest?
}

/// One simulated store behind the App Store Server API and the control API. Thread-safe: `handle` may be called
/// from many connections at once.
///
/// The store lock is never held across network I/O. A mutating request (``exclusively(_:refused:_:)``) changes the
/// store under the lock up to the next instant where something happens, releases it while the delivery attempts due
/// then are made, records their outcomes under the lock, and goes on (``drive(to:summary:)``). Reads take the lock
/// only to compute their answer, so they are answered during a delivery, with the state that includes the
/// notification being delivered; answers to repeated reads of an unchanged store come from a cache that every
/// change empties (they are deterministic: same store, same bytes).
package final class SimulatorServer: @unchecked Sendable {
    package let configuration: ServerConfiguration
    let transport: DeliveryTransport?
    let logFunction: (@Sendable (String) -> Void)?
    /// Guards every property below; mutating requests wait on it for the start-up deliveries.
    let lock = NSCondition()
    var state: ServerState
    /// Stands in for the store in `state` while the driver moves the real one (a small store, never changed).
    let placeholder: SimulatedStore
    var cache: [String: ServerResponse] = [:]
    /// The state answer's fingerprint of every customer, for one version of the state (``customersFingerprint(_:)``).
    var stateFingerprint: (version: Int, value: UInt64)?
    /// The mutating request running now (its name, as the 409 reason shows it); nil when none is.
    var mutation: String?
    /// Set by ``beginShutdown()``: no delivery attempt is started any more, and a change still running stops at the
    /// instant it reached (its answer is 503).
    var stopping = false
    let tokens = AcceptedTokens()
    /// The Host and Origin rules of the dashboard and `/simctl/` (``BrowserSafety``).
    let browserSafety: BrowserSafety
    /// Largest number of cached answers; the cache is emptied when it is full [assumed].
    static let cacheLimit = 20_000
    /// The name of the start-up deliveries while they run: mutating requests wait for them instead of getting 409.
    static let startUp = "the start-up delivery of the scenario's first instant"

    /// Builds the store at the scenario's start (customers, storefronts, family) and applies the timeline entries
    /// due at the start. Their notifications are delivered later, by ``deliverStartUp()`` (once the server listens)
    /// or by the first mutating request, whichever comes first. Throws the scenario error that stops it (a family
    /// that cannot be created, ...).
    package init(
        configuration: ServerConfiguration, transport: DeliveryTransport? = nil,
        log: (@Sendable (String) -> Void)? = nil
    ) throws(ServerSetupError) {
        self.configuration = configuration
        self.transport = transport
        self.logFunction = log
        browserSafety = BrowserSafety(listenHost: configuration.listenHost, allowedHosts: configuration.allowedHosts)
        state = try Self.initialState(configuration, delivering: transport != nil, epoch: configuration.epoch)
        placeholder = state.store
        var summary = AdvanceSummary()
        if let error = stepLocked(to: configuration.scenario.start, summary: &summary) {
            throw ServerSetupError(message: error)
        }
        encodeNew(&state, summary: &summary)
    }

    /// The state at the scenario's start, before its timeline: a store with the scenario's customers and family at
    /// `epoch`, and an empty delivery when the server delivers.
    static func initialState(_ configuration: ServerConfiguration, delivering: Bool, epoch: UInt32)
        throws(ServerSetupError) -> ServerState
    {
        let store: SimulatedStore
        do throws(ScenarioError) { store = try TimelineDriver.prepare(configuration.scenario, epoch: epoch) } catch {
            throw ServerSetupError(message: error.description)
        }
        var state = ServerState(
            store: store, driver: TimelineDriver(configuration.scenario), epoch: epoch,
            retention: RetentionMessaging(
                environment: configuration.scenario.app.environment, realtimeURL: configuration.realtimeURL))
        if delivering {
            do throws(DeliveryConfigurationError) {
                state.delivery = try NotificationDelivery(
                    start: configuration.scenario.start, schedule: configuration.deliveryMode.schedule,
                    chaos: configuration.chaos, seed: configuration.scenario.seed)
            } catch { throw ServerSetupError(message: "delivery options: \(error)") }
        }
        return state
    }

    /// Makes the delivery attempts due at the scenario's start (`simctl serve` calls it once it listens and has
    /// printed its URL, so a webhook can call the server back). Mutating requests that arrive meanwhile wait for it
    /// (rather than get 409: a test suite's first call may race with it). Returns the number of requests made.
    @discardableResult
    package func deliverStartUp() -> Int {
        lock.lock()
        while mutation != nil { lock.wait() }
        mutation = Self.startUp
        lock.unlock()
        defer { endMutation() }
        var summary = AdvanceSummary()
        _ = drive(to: nil, summary: &summary)
        return summary.deliveryAttempts
    }

    /// The server is stopping (SIGINT/SIGTERM): from now on no delivery attempt starts, and a change still running
    /// stops where it is and answers 503; the caller cuts the attempts in flight short through its transport
    /// (`HTTPDelivery.abort()`), and they are recorded as the attempts that did not complete. Idempotent.
    package func beginShutdown() {
        lock.lock()
        stopping = true
        lock.broadcast()
        lock.unlock()
    }

    /// The delivery's counts so far (delivered, failed after Apple's retries, still pending); nil without delivery.
    /// `simctl serve` prints them when it stops.
    package var deliverySummary: DeliverySummary? { locked { state.delivery?.summary } }

    /// Answers one request. Never throws, never traps on input: every request gets a status.
    package func handle(_ request: ServerRequest) -> ServerResponse {
        let response = route(request)
        if let logFunction {
            logFunction(
                "\(request.summary) -> \(response.status)\(response.status >= 400 ? " " + Self.reason(response) : "")")
        }
        return response
    }

    /// Writes one line to the log, if there is one (the text is built only then).
    func log(_ line: @autoclosure () -> String) {
        if let logFunction { logFunction(line()) }
    }

    static func reason(_ response: ServerResponse) -> String {
        if response.status == 401 {
            return response.headers.first { $0.name == "WWW-Authenticate" }.map { "(\($0.value))" } ?? ""
        }
        let text = response.bodyText
        return text.count > 400 ? String(text.prefix(400)) + "…" : text
    }

    // MARK: state under the lock

    /// Runs `body` under the lock. Never call it around network I/O.
    func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    var signer: any PayloadSigner { configuration.signer ?? configuration.scenario.app.environment.defaultSigner }

    /// The guard of every request that changes the store (the control API's advance, actions and reset, Request a
    /// Test Notification, and any App Store Server API endpoint that changes the store): runs `body` as the one
    /// mutating request. While another one is still running (it may be delivering, and its webhook may be calling
    /// the server back), answers `refused(reason)` at once, never waiting, so a webhook that makes a mutating call
    /// during its own delivery gets an answer instead of a deadlock; the start-up deliveries
    /// (``deliverStartUp()``) are waited for instead. `body` runs without the lock: it changes the state with
    /// ``locked(_:)`` and makes the attempts due with ``drive(to:summary:)``; it returns when every attempt due has
    /// been made (requests stay synchronous).
    package func exclusively(
        _ name: String, refused: (String) -> ServerResponse, _ body: () -> ServerResponse
    ) -> ServerResponse {
        if let reason = configuration.readOnlyReason { return refused("\(name) refused: \(reason)") }
        lock.lock()
        while mutation == Self.startUp && !stopping { lock.wait() }
        if stopping {
            lock.unlock()
            return .problem(503, "\(name) refused: the server is stopping")
        }
        if let running = mutation {
            lock.unlock()
            return refused(Self.busyReason(running: running, refused: name))
        }
        mutation = name
        lock.unlock()
        defer { endMutation() }
        return body()
    }

    /// The 409 reason of ``exclusively(_:refused:_:)`` (docs/server.md, "One change at a time").
    static func busyReason(running: String, refused: String) -> String {
        "\(refused) refused: \(running) is still running (it returns once every delivery attempt due has been "
            + "made); requests that change the store run one at a time, so retry once it has answered. A webhook may "
            + "read the store (the App Store Server API, GET /simctl/v1/...) during its delivery, but not change it"
    }

    /// Ends the mutating request ``exclusively(_:refused:_:)`` started, waking requests waiting for the start-up.
    func endMutation() {
        lock.lock()
        mutation = nil
        lock.broadcast()
        lock.unlock()
    }

    /// After any change under the lock: a new version, and no cached answer survives it.
    func changed() {
        state.version += 1
        cache.removeAll(keepingCapacity: true)
        stateFingerprint = nil
    }

    /// Encodes the store's notifications not encoded yet and hands them to the delivery.
    func encodeNew(_ state: inout ServerState, summary: inout AdvanceSummary) {
        let notifications = state.store.notifications
        guard state.encoded < notifications.count else { return }
        summary.notificationsSent += notifications.count - state.encoded
        let encoder = NotificationEncoder(app: state.store.app, signer: signer)
        var items: [DeliveryItem] = []
        for n in notifications[state.encoded...] {
            let item = DeliveryItem(n, encoder: encoder)
            items.append(item)
            var token: String?
            if n.type == .test {
                token = SimulatedStore.testNotificationToken(of: n)
                state.testTokens[token!] = state.records.count
            }
            state.records.append(SentRecord(item: item, type: n.type, subtype: n.subtype, testToken: token))
        }
        state.encoded = notifications.count
        state.delivery?.append(items)
    }

    /// Moves the store with the one timeline driver (``TimelineDriver``) to `target` and returns the error of a
    /// timeline entry the rules refuse (the clock then stays at that entry's instant and the entry is skipped).
    /// Under the lock; makes no delivery attempt.
    func stepLocked(to target: Instant, summary: inout AdvanceSummary) -> String? {
        // The store and driver are taken out of `state` while the driver moves them (one access at a time).
        var store = placeholder
        var driver = state.driver
        swap(&store, &state.store)
        defer {
            swap(&store, &state.store)
            state.driver = driver
            changed()
        }
        let entriesBefore = driver.nextEntry
        let stop = driver.advance(&store, to: target)
        summary.timelineEntries += driver.nextEntry - entriesBefore
        switch stop {
        case nil: return nil
        case .refused(let error):
            summary.timelineEntries -= 1
            return error.description
        case .store(let error): return "\(error)"
        }
    }

    /// The delivery loop of a mutating request: moves the clock to `target` (nil: it stays) one instant at a time,
    /// where an instant is the next one at which something happens (a timeline entry, a store event, a delivery
    /// attempt due: ``TimelineDriver/nextStop(_:deliveryDue:through:)``, shared with `simctl run` and `check`) [the
    /// rule of issue 25]. At each, under the lock, the store moves there (``stepLocked(to:summary:)``)
    /// and its new notifications are encoded; then, without the lock, the attempts due are made through the transport
    /// while the clock shows their instant; then their outcomes are recorded under the lock. So a webhook that calls
    /// the server back during its delivery reads the state that includes the notification it handles, and not later
    /// state. Returns the error of a refused timeline entry (the clock stays at its instant, and the attempts due
    /// there are still made). Call it only inside ``exclusively(_:refused:_:)``.
    func drive(to target: Instant?, summary: inout AdvanceSummary) -> String? {
        var error: String?
        /// The last instant the driver was moved to: everything at or before it has run.
        var reached: Instant?
        var reported = locked { state.delivery?.log.count ?? 0 }
        while true {
            let requests: [DeliveryRequest] = locked {
                while true {
                    if stopping {
                        summary.cutShortAt = state.store.now
                        return []
                    }
                    encodeNew(&state, summary: &summary)
                    let due = dueRequests(reported: &reported, summary: &summary)
                    if !due.isEmpty { return due }
                    let now = state.store.now
                    guard error == nil, let target, reached.map({ $0 < target }) ?? true else { return [] }
                    // The driver's next stop, never past the target (without a transport nothing is delivered, so
                    // the clock goes straight there).
                    var stop = target
                    if let delivery = state.delivery {
                        stop =
                            state.driver.nextStop(
                                state.store, deliveryDue: delivery.nextAttemptInstant, through: target) ?? target
                    }
                    error = stepLocked(to: max(stop, now), summary: &summary)
                    reached = state.store.now
                }
            }
            if requests.isEmpty { return error }
            let outcomes = transport!.attempt(requests)
            locked {
                for (request, outcome) in zip(requests, outcomes) { state.delivery!.record(outcome, for: request) }
                changed()
                // Attempts that ended because the server is stopping are logged as cut short.
                reportNewLines(from: &reported, summary: &summary, cutShort: stopping)
            }
        }
    }

    /// Under the lock: the next delivery requests due at or before the store's clock (as many as the transport has
    /// connections), logging chaos failures, which make no request; empty when none is due.
    func dueRequests(reported: inout Int, summary: inout AdvanceSummary) -> [DeliveryRequest] {
        guard let transport, state.delivery != nil else { return [] }
        let now = state.store.now
        while true {
            let requests = state.delivery!.nextRequests(limit: transport.connections, notAfter: now)
            if state.delivery!.log.count > reported {
                changed()
                reportNewLines(from: &reported, summary: &summary)
            }
            if !requests.isEmpty { return requests }
            // Chaos failures are recorded without a request: go on while anything is still due.
            guard let next = state.delivery!.nextAttemptInstant, next <= now else { return [] }
        }
    }

    /// Logs the delivery log's lines from `reported` on (each request made; chaos failures make none) and counts
    /// the requests.
    func reportNewLines(from reported: inout Int, summary: inout AdvanceSummary, cutShort: Bool = false) {
        guard let log = state.delivery?.log else { return }
        while reported < log.count {
            let entry = log[reported]
            reported += 1
            // Chaos failures make no request: the delivery log has them, the server's log shows requests.
            guard entry.chaos != "failFirst" else { continue }
            summary.deliveryAttempts += 1
            self.log(
                "deliver \(entry.notificationUUID) \(entry.notificationType)" + (entry.subtype.map { "/" + $0 } ?? "")
                    + " to \(entry.recipient ?? "the app") attempt \(entry.attempt) at \(entry.instant): "
                    + entry.sendAttemptResult.rawValue + (entry.httpStatus.map { " \($0)" } ?? "")
                    + (entry.responseStart.map { ": " + $0 } ?? "")
                    + (entry.chaos == "duplicate" ? " (duplicate)" : "")
                    + (cutShort ? " (did not complete: cut short, the server is stopping)" : ""))
        }
    }
}
/// What one clock advance or action did.
struct AdvanceSummary {
    var notificationsSent = 0
    var deliveryAttempts = 0
    var timelineEntries = 0
    /// The store's clock when the change stopped because the server is stopping (``SimulatorServer/beginShutdown()``).
    var cutShortAt: Instant?
}

/// The scenario cannot be served (its family cannot be created, delivery options are wrong, ...).
package struct ServerSetupError: Error, Hashable, Sendable, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}
