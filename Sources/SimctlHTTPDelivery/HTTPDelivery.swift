import Dispatch
import SimctlHTTP
import SubscriptionSimulator

/// Delivery over HTTP (`--deliver URL`), a ``DeliveryTransport`` for the library's one delivery pump: each attempt
/// POSTs the notification's body to the endpoint with `Content-Type: application/json`; the answer, timeout or socket
/// failure becomes Apple's `sendAttemptResult`. The wall-clock latency of each attempt is measured here (the library
/// never reads a clock). This target joins the HTTP client (`SimctlHTTP`, which knows nothing of the simulator) to the
/// simulator's delivery.
public final class HTTPDelivery: DeliveryTransport, @unchecked Sendable {
    public let endpoint: HTTPEndpoint
    public let timeoutMilliseconds: Int64
    /// Attempts in flight at once, one keep-alive connection each.
    public var connections: Int { clients.count }
    /// The endpoint, for logs and summaries.
    public var destination: String { endpoint.description }
    /// One keep-alive client per concurrent connection.
    let clients: [HTTPClient]

    /// `connections`: how many attempts may be in flight at once (each on its own keep-alive connection); with more
    /// than one, attempts due close together may reach the server in any order among themselves.
    public init(endpoint: HTTPEndpoint, timeoutMilliseconds: Int64 = 5000, connections: Int = 1) {
        precondition(connections >= 1 && timeoutMilliseconds > 0)
        self.endpoint = endpoint
        self.timeoutMilliseconds = timeoutMilliseconds
        clients = (0..<connections).map { _ in HTTPClient(endpoint: endpoint, timeoutMilliseconds: timeoutMilliseconds)
        }
    }

    /// Closes the connections.
    public func close() { clients.forEach { $0.close() } }

    /// Cuts the attempts in flight short, from any thread, and makes every later one fail at once (`OTHER`):
    /// `simctl serve` stopping within its bound while a webhook is slow (docs/reliability.md, "Shutdown").
    public func abort() { clients.forEach { $0.abort() } }

    /// The rule from a client's result to Apple's `sendAttemptResult`: a complete answer counts by its status
    /// (200–206 success, anything else `UNSUCCESSFUL_HTTP_RESPONSE_CODE`); no answer in time `TIMED_OUT`; a
    /// connection that cannot be made or fails while sending `SOCKET_ISSUE`; closed before any answer byte
    /// `NO_RESPONSE`; closed mid-answer `PREMATURE_CLOSE`; a malformed or oversized answer `INVALID_RESPONSE`; cut
    /// short by ``abort()`` `OTHER`.
    /// Which failure Apple files under which value is not documented [assumed].
    public static func outcome(_ result: Result<HTTPResponse, HTTPClientError>) -> SendAttemptResult {
        switch result {
        case .success(let response): return .forHTTPStatus(response.status)
        case .failure(.timedOut): return .timedOut
        case .failure(.connectFailed), .failure(.sendFailed), .failure(.receiveFailed): return .socketIssue
        case .failure(.noResponse): return .noResponse
        case .failure(.prematureClose): return .prematureClose
        case .failure(.invalidResponse): return .invalidResponse
        // Cut short by ``abort()`` (`serve` stopping): the attempt did not complete [assumed: Apple has no value for
        // an attempt its own sender abandoned; OTHER is its catch-all].
        case .failure(.aborted): return .other
        }
    }

    /// The header every delivery attempt carries: its virtual instant, in milliseconds since 1970 (simctl's clock,
    /// not the wall clock).
    public static let nowHeader = "X-Simctl-Now"

    /// Makes one attempt on client `connection`.
    public func attempt(_ request: DeliveryRequest, connection: Int = 0) -> DeliveryOutcome {
        let clock = ContinuousClock()
        let started = clock.now
        // The attempt's virtual instant (docs/delivery.md, "The X-Simctl-Now header"), for a backend that compares
        // dates with its own clock.
        let result = clients[connection].post(
            Array(request.body.utf8), headers: [(Self.nowHeader, "\(request.instant.millisecondsSince1970)")])
        let elapsed = started.duration(to: clock.now).components
        let microseconds = elapsed.seconds * 1_000_000 + elapsed.attoseconds / 1_000_000_000_000
        var status: Int?
        var start: String?
        if case .failure(.aborted) = result {
            return DeliveryOutcome(
                sendAttemptResult: Self.outcome(result), wallLatencyMicroseconds: microseconds, cutShort: true)
        }
        if case .success(let response) = result {
            status = response.status
            // What a refusing endpoint said (the start of its body), for the report and the log.
            if !(200...206).contains(response.status) { start = DeliveryOutcome.responseStart(of: response.body) }
        }
        return DeliveryOutcome(
            sendAttemptResult: Self.outcome(result), httpStatus: status, wallLatencyMicroseconds: microseconds,
            responseStart: start)
    }

    /// Makes `requests` at once, request `i` on connection `i` (at most one per connection).
    public func attempt(_ requests: [DeliveryRequest]) -> [DeliveryOutcome] {
        precondition(requests.count <= clients.count)
        if requests.count == 1 { return [attempt(requests[0])] }
        let results = ConcurrentSlots<DeliveryOutcome>(count: requests.count)
        DispatchQueue.concurrentPerform(iterations: requests.count) { index in
            results.set(index, self.attempt(requests[index], connection: index))
        }
        return results.values
    }

    /// Delivers every item, retrying on `schedule`, until each is delivered or out of attempts (the library's pump,
    /// ``NotificationDelivery/pump(notAfter:over:recorded:)``, over this transport).
    public func deliver(_ items: [DeliveryItem], schedule: RetrySchedule, chaos: DeliveryChaos = .none, seed: UInt64)
        -> DeliveryReport
    {
        var delivery = NotificationDelivery(items: items, schedule: schedule, chaos: chaos, seed: seed)
        delivery.pump(over: self, recorded: { _ in })
        return delivery.report
    }
}
