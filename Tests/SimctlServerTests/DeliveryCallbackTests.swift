import Foundation
import SimctlCrypto
import SimctlServer
import SubscriptionSimulator
import Testing

/// The server a transport calls back, set once the server exists.
final class ServerBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: SimulatorServer?

    var server: SimulatorServer? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
        set {
            lock.lock()
            stored = newValue
            lock.unlock()
        }
    }
}

/// Values several threads append to.
final class LockedList<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Element] = []
    func append(_ element: Element) {
        lock.lock()
        stored.append(element)
        lock.unlock()
    }
    var values: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// The JSON payload of a compact JWS (the signature is not checked here).
func jwsPayload(_ jws: String) -> JSONValue {
    let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let bytes = Base64URL.decode(String(parts[1])) else { return .null }
    return (try? CanonicalJSON.parse(String(decoding: bytes, as: UTF8.self))) ?? .null
}

/// The JSON payload of the JWS in a delivery body (`{"signedPayload": "<JWS>"}`).
func bodyPayload(_ body: String) -> JSONValue {
    jwsPayload((try? CanonicalJSON.parse(body))?.value(at: "signedPayload")?.stringValue ?? "")
}

/// Issue 25, 1 and 4: the store lock is never held across network I/O; start-up order; reset epochs.
@Suite struct DeliveryCallbackTests {
    static let familyStory = repositoryRoot + "/Scenarios/family-billing-grace-recovery.yaml"

    func familyStoryScenario() throws -> Scenario {
        try decodeScenario(try String(contentsOfFile: Self.familyStory, encoding: .utf8), file: Self.familyStory)
    }

    /// What a webhook saw while it handled one notification.
    struct Seen {
        var instant: Instant
        var recipient: String?
        var state: JSONValue
        var statuses: ServerResponse
        /// A mutating call's answer (not tried for the start-up delivery, which such a call would wait for).
        var busy: ServerResponse?
    }

    @Test func aWebhookThatCallsBackSeesTheStateOfTheNotificationItHandles() throws {
        let scenario = try familyStoryScenario()
        let box = ServerBox()
        let seen = LockedList<Seen>()
        let transport = ClosureTransport { request in
            let server = box.server!
            let state = server.stateJSON()
            let id = state.value(at: "customers.0.subscriptions.0.originalTransactionId")?.stringValue ?? "0"
            seen.append(
                Seen(
                    instant: request.instant, recipient: request.item.recipient, state: state,
                    statuses: server.get("/inApps/v1/subscriptions/\(id)"),
                    busy: seen.values.isEmpty ? nil : server.control("/simctl/v1/advance", #"{"by": "1d"}"#)))
            return .status(200)
        }
        let server = try SimulatorServer(configuration: ServerConfiguration(scenario: scenario), transport: transport)
        box.server = server
        // Start-up order: nothing is delivered before the server is told it listens.
        #expect(seen.values.isEmpty)
        #expect(server.stateJSON().value(at: "notificationsSent") == .integer(1))
        #expect(server.deliverStartUp() == 1)
        let advance = server.control("/simctl/v1/advance", #"{"to": "\#(scenario.until)"}"#)
        #expect(advance.status == 200)

        // Every notification of the story, each delivered on its first attempt.
        guard
            case .array(let attempts)? = server.handle(ServerRequest(method: "GET", path: "/simctl/v1/deliveries"))
                .json.value(at: "attempts")
        else { throw TestConnectionError(description: "no attempts") }
        #expect(attempts.count == 8)
        #expect(attempts.allSatisfy { $0.value(at: "sendAttemptResult") == .string("SUCCESS") })
        #expect(attempts.allSatisfy { $0.value(at: "attempt") == .integer(1) })
        #expect(seen.values.count == 8)

        // Each answer the webhook read is the state at its notification's instant, not later.
        var reference = try TimelineDriver.prepare(scenario)
        var driver = TimelineDriver(scenario)
        for seen in seen.values {
            #expect(seen.state.value(at: "now") == .integer(seen.instant.millisecondsSince1970))
            #expect(driver.advance(&reference, to: seen.instant) == nil)
            let expected = ServerAPI(reference).allSubscriptionStatuses(for: "alice")
            #expect(seen.statuses.status == 200)
            #expect(seen.statuses.bodyText == CanonicalJSON.string(expected), "at \(seen.instant)")
            let signed = seen.statuses.json.value(at: "data.0.lastTransactions.0.signedTransactionInfo")
            #expect(
                jwsPayload(signed?.stringValue ?? "").value(at: "signedDate")
                    == .integer(seen.instant.millisecondsSince1970))
            // A mutating call during a delivery is refused at once, with the reason.
            guard let busy = seen.busy else { continue }
            #expect(busy.status == 409)
            #expect(busy.json.value(at: "error")?.stringValue?.contains("is still running") == true)
        }
    }

    @Test func readersAreAnsweredDuringASlowDeliveryAndMutatingCallsGet409() throws {
        // The webhook holds its delivery until this test releases it (30 s at most, a backstop). Everything below that
        // must not wait for the delivery is checked by order, never by elapsed time: it must be answered while the
        // slow call is still unanswered, which a server holding its lock across the delivery could only do after the
        // backstop had passed, and then `releasedInTime` records it.
        let delivering = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let releasedInTime = LockedList<Bool>()
        let calls = LockedList<Int>()
        let transport = ClosureTransport { _ in
            let first = calls.values.isEmpty  // the server delivers one notification at a time
            calls.append(1)
            guard first else { return .status(200) }  // only the first delivery is held
            delivering.signal()
            releasedInTime.append(release.wait(timeout: .now() + 30) == .success)
            return .status(200)
        }
        let server = try makeServer(transport: transport)
        let answered = LockedList<ServerResponse>()
        let thread = Thread {
            answered.append(
                server.control(
                    "/simctl/v1/actions", #"{"purchase": {"customer": "alice", "product": "\#(familyProduct)"}}"#))
        }
        thread.start()
        #expect(delivering.wait(timeout: .now() + 10) == .success)
        // Another client reads the control API and the App Store Server API while the webhook holds the delivery.
        let state = server.stateJSON()
        let id = state.value(at: "customers.0.subscriptions.0.originalTransactionId")?.stringValue ?? ""
        let statuses = server.get("/inApps/v1/subscriptions/\(id)")
        #expect(answered.values.isEmpty, "the reads were answered only after the slow call")
        #expect(statuses.status == 200)
        #expect(state.value(at: "notificationsSent") == .integer(1))
        for (path, body) in [
            ("/simctl/v1/advance", #"{"by": "1d"}"#), ("/simctl/v1/reset", ""),
            ("/simctl/v1/actions", #"{"failBilling": {"customer": "alice"}}"#),
        ] {
            let busy = server.control(path, body)
            #expect(busy.status == 409, "\(path)")
            #expect(
                busy.json.value(at: "error")?.stringValue?.hasPrefix(
                    "POST \(path) refused: POST /simctl/v1/actions is still running") == true)
        }
        // The App Store Server API's changes are refused in Apple's shape: 429 RateLimitExceeded with the reason.
        let appleBusy = server.post("/inApps/v1/notifications/test", "")
        #expect(appleBusy.status == 429)
        #expect(appleBusy.json.value(at: "errorCode") == .integer(4_290_000))
        #expect(
            appleBusy.json.value(at: "errorMessage")?.stringValue?.hasPrefix(
                "Rate limit exceeded. POST /inApps/v1/notifications/test refused:") == true)
        #expect(answered.values.isEmpty, "the refusals were answered only after the slow call")
        release.signal()
        while answered.values.isEmpty { Thread.sleep(forTimeInterval: 0.01) }
        #expect(answered.values.first?.status == 200)
        #expect(releasedInTime.values == [true], "the delivery was held until every read and refusal had answered")
        // Once the call has answered, the next mutating call runs.
        #expect(server.control("/simctl/v1/advance", #"{"by": "1d"}"#).status == 200)
    }

    @Test func startUpDeliveriesWaitUntilTheServerListens() throws {
        let recording = RecordingTransport()
        let scenario = familyServeScenario.replacingOccurrences(
            of: "timeline: []",
            with: "timeline:\n  - at: 0\n    purchase: { customer: alice, product: \(familyProduct) }")
        let server = try SimulatorServer(
            configuration: ServerConfiguration(scenario: try decodeScenario(scenario)), transport: recording)
        // The state is complete and readable at once; the notification waits.
        #expect(server.stateJSON().value(at: "customers.0.entitlements") == .array([.string(familyProduct)]))
        #expect(server.stateJSON().value(at: "pendingDeliveryAttempts") == .integer(1))
        #expect(recording.requests.isEmpty)
        #expect(server.deliverStartUp() == 1)
        #expect(recording.requests.count == 1)
        #expect(server.deliverStartUp() == 0)

        // Without deliverStartUp, the first mutating call delivers them before its own change.
        let other = RecordingTransport()
        let second = try SimulatorServer(
            configuration: ServerConfiguration(scenario: try decodeScenario(scenario)), transport: other)
        #expect(second.control("/simctl/v1/advance", #"{"by": "1h"}"#).status == 200)
        #expect(other.requests.map(\.instant) == [recording.requests[0].instant, other.requests[1].instant])
        #expect(other.requests.map(\.item.recipient) == ["alice", "bob"])
    }

    @Test func resetMovesToTheNextEpochAndSameKeepsTheBytes() throws {
        let recording = RecordingTransport()
        let scenario = familyServeScenario.replacingOccurrences(
            of: "timeline: []",
            with: "timeline:\n  - at: 0\n    purchase: { customer: alice, product: \(familyProduct) }")
        let server = try makeServer(transport: recording, scenario: scenario)
        _ = server.control("/simctl/v1/advance", #"{"by": "P1M"}"#)
        let first = recording.requests.map(\.body)
        let firstState = server.stateJSON()
        #expect(firstState.value(at: "epoch") == .integer(0))
        #expect(first.count == 4)

        // Reset (body {}): epoch 1, every id and UUID new.
        let reset = server.control("/simctl/v1/reset", "{}")
        #expect(reset.status == 200)
        #expect(reset.json.value(at: "epoch") == .integer(1))
        _ = server.control("/simctl/v1/advance", #"{"by": "P1M"}"#)
        let second = Array(recording.requests.map(\.body)[first.count...])
        #expect(second.count == first.count)
        let uuids = { (bodies: [String]) in
            bodies.map { bodyPayload($0).value(at: "notificationUUID") }
        }
        #expect(Set(uuids(first)).isDisjoint(with: uuids(second)))
        let secondState = server.stateJSON()
        for path in [
            "customers.0.subscriptions.0.originalTransactionId", "customers.0.transactions.0.transactionId",
        ] {
            #expect(secondState.value(at: path) != nil)
            #expect(secondState.value(at: path) != firstState.value(at: path), "\(path)")
        }

        // {"epoch": "same"}: the same bytes again; {"epoch": 0}: the first run's bytes.
        #expect(server.control("/simctl/v1/reset", #"{"epoch": "same"}"#).json.value(at: "epoch") == .integer(1))
        _ = server.control("/simctl/v1/advance", #"{"by": "P1M"}"#)
        #expect(Array(recording.requests.map(\.body)[(2 * first.count)...]) == second)
        #expect(server.control("/simctl/v1/reset", #"{"epoch": 0}"#).json.value(at: "epoch") == .integer(0))
        _ = server.control("/simctl/v1/advance", #"{"by": "P1M"}"#)
        #expect(Array(recording.requests.map(\.body)[(3 * first.count)...]) == first)
        #expect(server.stateJSON() == firstState)

        for bad in [#"{"epoch": -1}"#, #"{"epoch": "next"}"#, #"{"epoch": 4294967296}"#, #"{"seed": 1}"#, "[]"] {
            #expect(server.control("/simctl/v1/reset", bad).status == 400, "\(bad)")
        }
    }

    @Test func serveStartsAtTheEpochItIsGiven() throws {
        let scenario = try familyStoryScenario()
        let zero = try SimulatorServer(configuration: ServerConfiguration(scenario: scenario))
        let three = try SimulatorServer(configuration: ServerConfiguration(scenario: scenario, epoch: 3))
        #expect(three.stateJSON().value(at: "epoch") == .integer(3))
        let id = "customers.0.subscriptions.0.originalTransactionId"
        #expect(zero.stateJSON().value(at: id) == .string("2000000100000001"))
        #expect(three.stateJSON().value(at: id) == .string("2003000000100000001"))
    }
}
