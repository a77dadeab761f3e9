/// Where delivery attempts go: anything that can make attempts and say how each came out (HTTP in `simctl run
/// --deliver` and `simctl serve`, a closure in tests). ``NotificationDelivery/pump(notAfter:over:recorded:)`` is the one
/// loop that drives a delivery through a transport, for every front end.
public protocol DeliveryTransport: AnyObject, Sendable {
    /// Attempts that may be made at once (`--deliver-connections`): the pump hands out at most this many together.
    var connections: Int { get }
    /// Makes `requests` (at most ``connections``, none depending on another's outcome) and returns their outcomes in
    /// the same order.
    func attempt(_ requests: [DeliveryRequest]) -> [DeliveryOutcome]
    /// The destination, for logs and summaries.
    var destination: String { get }
}

/// A transport that answers in process, one attempt at a time, through a closure (tests, embedders).
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

extension NotificationDelivery {
    /// The delivery pump: makes every attempt due at or before `notAfter` (every attempt there will ever be, when
    /// nil: retries run past the scenario's end) through `attempt`, at most `limit` at once, recording each outcome.
    /// `recorded` is called with every new line of the delivery log, in order, chaos failures (which make no request)
    /// included; a failure it throws stops the pump. With ``DeliveryHistory/inFlight`` the lines are then forgotten
    /// (those recorded outside a pump are handed on by the next one). Returns how many requests were made.
    @discardableResult
    public mutating func pump<Failure: Error>(
        notAfter: Instant? = nil, limit: Int = 1,
        attempt: ([DeliveryRequest]) throws(Failure) -> [DeliveryOutcome],
        recorded: (DeliveryLogEntry) throws(Failure) -> Void
    ) throws(Failure) -> Int {
        try pump(
            notAfter: notAfter, limit: limit, wholeBatches: false, attempt: attempt, recorded: recorded,
            stopping: { false })
    }

    /// The pump; with `wholeBatches`, `notAfter` bounds only the first attempt of each batch, and the batch takes
    /// the attempts after it as when nothing bounds it (``nextRequests(limit:notAfter:wholeBatch:)``). Once
    /// `stopping` answers true (checked before each batch), no further attempt starts: the pump records what it has
    /// and returns; what is still scheduled stays pending (``pendingAttempts``).
    @discardableResult
    mutating func pump<Failure: Error>(
        notAfter: Instant?, limit: Int, wholeBatches: Bool,
        attempt: ([DeliveryRequest]) throws(Failure) -> [DeliveryOutcome],
        recorded: (DeliveryLogEntry) throws(Failure) -> Void, stopping: () -> Bool
    ) throws(Failure) -> Int {
        var made = 0
        var reported = history == .inFlight ? 0 : log.count
        /// Hands `recorded` the log lines written since the last call, chaos failures included.
        func reportNewLines() throws(Failure) {
            while reported < log.count {
                try recorded(log[reported])
                reported += 1
            }
            if history == .inFlight {
                forgetLog()
                reported = 0
            }
        }
        while true {
            if stopping() {
                try reportNewLines()
                return made
            }
            let requests = nextRequests(limit: limit, notAfter: notAfter, wholeBatch: wholeBatches)
            if requests.isEmpty {
                try reportNewLines()
                // Chaos failures are recorded without a request: go on while anything is still due.
                if let next = nextAttemptInstant, notAfter.map({ next <= $0 }) ?? true { continue }
                return made
            }
            let outcomes = try attempt(requests)
            for (request, outcome) in zip(requests, outcomes) { record(outcome, for: request) }
            made += requests.count
            try reportNewLines()
        }
    }

    /// ``pump(notAfter:limit:attempt:recorded:)`` through a ``DeliveryTransport``, as many attempts at once as it has
    /// connections.
    @discardableResult
    public mutating func pump<Failure: Error>(
        notAfter: Instant? = nil, over transport: some DeliveryTransport,
        recorded: (DeliveryLogEntry) throws(Failure) -> Void
    ) throws(Failure) -> Int {
        try pump(
            notAfter: notAfter, limit: transport.connections,
            attempt: { (requests) throws(Failure) in transport.attempt(requests) }, recorded: recorded)
    }
}
