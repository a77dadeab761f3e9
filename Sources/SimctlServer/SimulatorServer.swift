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

    package init(
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
package final class SimulatorServer: @unchecked Sendable {
    package let configuration: ServerConfiguration
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
    package init(
        configuration: ServerConfiguration, transport: DeliveryTransport? = nil,
        log: (@Sendable (String) -> Void)? = nil
    ) throws(ServerSetupError) {
        self.configuration = configuration
        self.transport = transport
        self.logFunction = log
        let store: SimulatedStore
        do throws(ScenarioError) { store = try TimelineDriver.prepare(configuration.scenario) } catch {
            throw ServerSetupError(message: error.description)
        }
        var state = ServerState(store: store, driver: TimelineDriver(configuration.scenario))
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

    /// Runs `body` under the lock (requests run one at a time).
    func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    var signer: any PayloadSigner { configuration.signer ?? configuration.scenario.app.environment.defaultSigner }

    /// Encodes the store's notifications not encoded yet and hands them to the delivery.
    func encodeNew(_ state: inout ServerState, from store: borrowing SimulatedStore) {
        let notifications = store.notifications
        guard state.encoded < notifications.count else { return }
        let encoder = NotificationEncoder(app: store.app, signer: signer)
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

    /// Makes every delivery attempt due at or before `instant` through the one pump, logging each request made.
    func pump(_ state: inout ServerState, until instant: Instant, summary: inout AdvanceSummary) {
        guard let transport, state.delivery != nil else { return }
        state.delivery!.pump(notAfter: instant, over: transport) { entry in
            // Chaos failures make no request: the delivery log has them, the server's log shows requests.
            guard entry.chaos != "failFirst" else { return }
            summary.deliveryAttempts += 1
            log(
                "deliver \(entry.notificationUUID) \(entry.notificationType)" + (entry.subtype.map { "/" + $0 } ?? "")
                    + " to \(entry.recipient ?? "the app") attempt \(entry.attempt) at \(entry.instant): "
                    + entry.sendAttemptResult.rawValue + (entry.httpStatus.map { " \($0)" } ?? "")
                    + (entry.chaos == "duplicate" ? " (duplicate)" : ""))
        }
    }

    /// Advances the clock to `target` with the one timeline driver (``TimelineDriver``): the scenario's timeline
    /// entries due on the way apply after the store events at their instant, as in `simctl run`, and every delivery
    /// attempt due is made after each entry and at the target. Returns the error of a timeline entry the rules
    /// refuse: the clock then stays at that entry's instant and the entry is skipped.
    func advanceLocked(to target: Instant, summary: inout AdvanceSummary) -> String? {
        state.version += 1
        // The store is taken out of `state` while the driver moves it, so `finish` may change the rest of `state`.
        var store = initial.store
        swap(&store, &state.store)
        defer { swap(&store, &state.store) }
        let entriesBefore = state.driver.nextEntry
        var driver = state.driver
        let stop = driver.advance(&store, to: target) { store in finish(&state, store, summary: &summary) }
        state.driver = driver
        summary.timelineEntries += driver.nextEntry - entriesBefore
        switch stop {
        case nil: return nil
        case .refused(let error):
            summary.timelineEntries -= 1
            return error.description
        case .store(let error): return "\(error)"
        }
    }

    /// After the store moved or acted: encodes what it sent, makes the delivery attempts due up to its clock, and
    /// forgets cached answers.
    func finish(_ state: inout ServerState, _ store: borrowing SimulatedStore, summary: inout AdvanceSummary) {
        summary.notificationsSent += store.notifications.count - state.encoded
        encodeNew(&state, from: store)
        pump(&state, until: store.now, summary: &summary)
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
package struct ServerSetupError: Error, Hashable, Sendable, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}
