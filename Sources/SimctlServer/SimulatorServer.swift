import Foundation
import SubscriptionSimulator

/// Where the server sends notifications: any handler that makes delivery attempts (HTTP in `simctl serve`, a
/// closure in tests). Called with the server's lock held, so attempts run one batch at a time.
public protocol DeliveryTransport: AnyObject, Sendable {
    /// Attempts that may be made at once (`--deliver-connections`).
    var connections: Int { get }
    /// Makes `requests` (at most ``connections``) and returns their outcomes in the same order.
    func attempt(_ requests: [DeliveryRequest]) -> [DeliveryOutcome]
    /// The destination, for the log.
    var destination: String { get }
}

/// A transport that answers in process (tests, and `--deliver` left out but history wanted).
public final class ClosureTransport: DeliveryTransport, @unchecked Sendable {
    public let connections = 1
    public let destination: String
    let handler: (DeliveryRequest) -> DeliveryOutcome

    public init(destination: String = "in-process handler", handler: @escaping (DeliveryRequest) -> DeliveryOutcome) {
        self.destination = destination
        self.handler = handler
    }

    public func attempt(_ requests: [DeliveryRequest]) -> [DeliveryOutcome] { requests.map(handler) }
}

/// What `simctl serve` serves.
public struct ServerConfiguration: Sendable {
    /// The starting point: catalogue, app, family, customers, seed, and the timeline applied as the clock advances.
    public var scenario: Scenario
    /// Signs every JWS the server answers or delivers; nil: the environment's default signer (as `simctl run`).
    public var signer: (any PayloadSigner)?
    public var deliveryMode: DeliveryMode
    public var chaos: DeliveryChaos
    public var token: BearerTokenPolicy

    public init(
        scenario: Scenario, signer: (any PayloadSigner)? = nil, deliveryMode: DeliveryMode = .production,
        chaos: DeliveryChaos = .none, token: BearerTokenPolicy? = nil
    ) {
        self.scenario = scenario
        self.signer = signer
        self.deliveryMode = deliveryMode
        self.chaos = chaos
        self.token = token ?? BearerTokenPolicy(bundleId: scenario.app.bundleId)
    }
}

/// One notification the server has sent: its POST body, its `signedPayload`, and its position in the delivery
/// (the same as in ``ServerState/records``).
struct SentRecord: Sendable {
    var item: DeliveryItem
    var signedPayload: String
    var type: NotificationType
    var subtype: NotificationSubtype?
    /// The `testNotificationToken` of a `TEST` notification; nil for the others.
    var testToken: String?
}

/// Everything the server holds; changed only under the server's lock.
struct ServerState: Sendable {
    var store: SimulatedStore
    /// The scenario's timeline entries not applied yet start at `nextEntry`.
    var nextEntry = 0
    /// Store notifications already encoded into `records`.
    var encoded = 0
    var records: [SentRecord] = []
    var testTokens: [String: Int] = [:]
    var delivery: NotificationDelivery?
    /// Bumped by every change; answers cached for one version only.
    var version = 0
}

/// One simulated store behind the App Store Server API and the control API. Thread-safe: `handle` may be called
/// from many connections at once; requests run one at a time under a lock, and answers to repeated reads of an
/// unchanged store come from a cache (they are deterministic: same store, same bytes).
public final class SimulatorServer: @unchecked Sendable {
    public let configuration: ServerConfiguration
    let transport: DeliveryTransport?
    let logFunction: (@Sendable (String) -> Void)?
    let lock = NSLock()
    let initial: ServerState
    var state: ServerState
    var cache: [String: ServerResponse] = [:]
    let tokens = AcceptedTokens()
    /// Largest number of cached answers; the cache is emptied when it is full [assumed].
    static let cacheLimit = 20_000

    /// Builds the store at the scenario's start (customers, storefronts, family) and applies the timeline entries
    /// due at the start. Throws the scenario error that stops it (a family that cannot be created, ...).
    public init(
        configuration: ServerConfiguration, transport: DeliveryTransport? = nil,
        log: (@Sendable (String) -> Void)? = nil
    ) throws(ServerSetupError) {
        self.configuration = configuration
        self.transport = transport
        self.logFunction = log
        var empty = configuration.scenario
        empty.timeline = []
        empty.expectations = []
        empty.until = empty.start
        let start = ScenarioRunner.execute(empty)
        if let stop = start.stoppedBy { throw ServerSetupError(message: stop.description) }
        var state = ServerState(store: start.store)
        if transport != nil {
            do throws(DeliveryConfigurationError) {
                state.delivery = try NotificationDelivery(
                    start: configuration.scenario.start, schedule: configuration.deliveryMode.schedule,
                    chaos: configuration.chaos, seed: configuration.scenario.seed)
            } catch { throw ServerSetupError(message: "delivery options: \(error)") }
        }
        initial = state
        self.state = state
        lock.lock()
        defer { lock.unlock() }
        var summary = AdvanceSummary()
        if let error = advanceLocked(to: configuration.scenario.start, summary: &summary) {
            throw ServerSetupError(message: error)
        }
    }

    /// Answers one request. Never throws, never traps on input: every request gets a status.
    public func handle(_ request: ServerRequest) -> ServerResponse {
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

    /// Runs `body` under the lock (requests run one at a time).
    func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    var signer: any PayloadSigner { configuration.signer ?? configuration.scenario.app.environment.defaultSigner }

    /// Encodes the store's new notifications and hands them to the delivery.
    func encodeNew(_ state: inout ServerState) {
        let notifications = state.store.notifications
        guard state.encoded < notifications.count else { return }
        let encoder = NotificationEncoder(app: state.store.app, signer: signer)
        var items: [DeliveryItem] = []
        for n in notifications[state.encoded...] {
            let encoded = encoder.encode(n)
            let item = DeliveryItem(
                notificationUUID: n.notificationUUID, recipient: n.recipient, instant: n.instant,
                notificationType: n.type.rawValue, subtype: n.subtype?.rawValue, body: encoded.postBody)
            items.append(item)
            var token: String?
            if n.type == .test {
                token = SimulatedStore.testNotificationToken(of: n)
                state.testTokens[token!] = state.records.count
            }
            state.records.append(
                SentRecord(
                    item: item, signedPayload: Self.signedPayload(of: encoded.postBody), type: n.type,
                    subtype: n.subtype, testToken: token))
        }
        state.encoded = notifications.count
        state.delivery?.append(items)
    }

    static func signedPayload(of body: String) -> String {
        (try? CanonicalJSON.parse(body))?.value(at: "signedPayload")?.stringValue ?? ""
    }

    /// Makes every delivery attempt due at or before `instant`, logging each.
    func pump(_ state: inout ServerState, until instant: Instant, summary: inout AdvanceSummary) {
        guard let transport, state.delivery != nil else { return }
        while true {
            let requests = state.delivery!.nextRequests(limit: transport.connections, notAfter: instant)
            if requests.isEmpty {
                // Chaos failures are recorded without a request; stop once nothing more is due.
                if state.delivery!.nextAttemptInstant.map({ $0 <= instant }) == true { continue }
                break
            }
            let outcomes = transport.attempt(requests)
            for (request, outcome) in zip(requests, outcomes) {
                state.delivery!.record(outcome, for: request)
                summary.deliveryAttempts += 1
                log(
                    "deliver \(request.item.notificationUUID) \(request.item.notificationType)"
                        + (request.item.subtype.map { "/" + $0 } ?? "")
                        + " to \(request.item.recipient ?? "the app") attempt "
                        + "\(request.attempt) at \(request.instant): \(outcome.sendAttemptResult.rawValue)"
                        + (outcome.httpStatus.map { " \($0)" } ?? "") + (request.isDuplicate ? " (duplicate)" : ""))
            }
        }
    }

    /// Advances the clock to `target`, applying the scenario's timeline entries due on the way (each after the
    /// store events at its instant, as `simctl run` does) and making every delivery attempt due. Returns the error
    /// of a timeline entry the rules refuse: the clock then stays at that entry's instant and the entry is skipped.
    func advanceLocked(to target: Instant, summary: inout AdvanceSummary) -> String? {
        let timeline = configuration.scenario.timeline
        let file = configuration.scenario.file
        state.version += 1
        while state.nextEntry < timeline.count, timeline[state.nextEntry].at <= target {
            let entry = timeline[state.nextEntry]
            state.nextEntry += 1
            let before = state.store.notifications.count
            do throws(StoreError) {
                try state.store.advance(to: entry.at)
                try state.store.perform(entry.action)
            } catch {
                finish(&state, until: state.store.now, before: before, summary: &summary)
                return ScenarioError(
                    file: file, location: entry.location,
                    message: "\(entry.action.name) at \(entry.at) cannot happen: \(error)"
                ).description
            }
            summary.timelineEntries += 1
            finish(&state, until: entry.at, before: before, summary: &summary)
        }
        let before = state.store.notifications.count
        do throws(StoreError) { try state.store.advance(to: target) } catch {
            finish(&state, until: state.store.now, before: before, summary: &summary)
            return "\(error)"
        }
        finish(&state, until: target, before: before, summary: &summary)
        return nil
    }

    func finish(_ state: inout ServerState, until instant: Instant, before: Int, summary: inout AdvanceSummary) {
        summary.notificationsSent += state.store.notifications.count - before
        encodeNew(&state)
        pump(&state, until: instant, summary: &summary)
        cache.removeAll(keepingCapacity: true)
    }
}

/// What one clock advance or action did.
struct AdvanceSummary {
    var notificationsSent = 0
    var deliveryAttempts = 0
    var timelineEntries = 0
}

/// The scenario cannot be served (its family cannot be created, delivery options are wrong, ...).
public struct ServerSetupError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
