import Dispatch
import Foundation
import SubscriptionSimulator

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Delivery over HTTPS (`--deliver https://...`), a ``DeliveryTransport`` for the library's one delivery pump, through
/// the toolchain's `URLSession` (FoundationNetworking on Linux: libcurl and OpenSSL), never TLS of simctl's own. The
/// server's certificate is checked against the system's trust store, the only store FoundationNetworking reads on
/// Linux (docs/delivery.md shows how to add a test CA). Each attempt POSTs the notification's body byte for byte with
/// the headers of the http transport (`Content-Type: application/json`, `User-Agent: simctl`, `Accept: */*`); redirects
/// are not followed (a 3xx is an unsuccessful answer, as for http); one deadline of `timeoutMilliseconds` covers
/// connecting, the TLS handshake, sending and the whole answer. The pump's attempts are made together, at most
/// ``connections`` at once, each on a kept-alive connection. The wall-clock latency is measured here.
package final class HTTPSDelivery: DeliveryTransport, @unchecked Sendable {
    /// Where the attempts go.
    package let url: URL
    /// The wall time an attempt may take before it is recorded `TIMED_OUT`.
    package let timeoutMilliseconds: Int64
    /// Attempts in flight at once (`--deliver-connections`), one kept-alive connection each.
    package let connections: Int
    /// The URL, for logs and summaries.
    package var destination: String { url.absoluteString }
    /// The session: ephemeral (no cookies, cache or credentials kept), at most ``connections`` connections.
    let session: URLSession
    /// The session's delegate: refuses redirects, and says when the session has let go of its tasks.
    let delegate = SessionDelegate()
    /// ``close()`` was called: an attempt that then ends in an error was cut short (`OTHER`, ``DeliveryOutcome/cutShort``).
    private var isClosing = false
    private let closingLock = NSLock()

    /// `url` is usually an `https://` URL from ``endpoint(_:)``; an `http://` URL works too (tests use one to watch
    /// the bytes on the wire), though `simctl` sends `http://` through its own client.
    package init(url: URL, timeoutMilliseconds: Int64 = 5000, connections: Int = 1) {
        precondition(connections >= 1 && timeoutMilliseconds > 0)
        self.url = url
        self.timeoutMilliseconds = timeoutMilliseconds
        self.connections = connections
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = connections
        // FoundationNetworking rounds its timeouts down to whole seconds (500 ms would time out at once), so the
        // deadline is kept by `attempt`; the session's own timeouts only back it up.
        let backstop = Double(timeoutMilliseconds) / 1000 + 5
        configuration.timeoutIntervalForRequest = backstop
        configuration.timeoutIntervalForResource = backstop
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    /// Ends the session: cancels what is still in flight and waits (at most 2 s) until the session says it has let go
    /// of its tasks, so nothing of this transport's work is still starting when the caller goes on (the process may
    /// be about to end).
    package func close() {
        closingLock.withLock { isClosing = true }
        session.invalidateAndCancel()
        _ = delegate.invalidated.wait(timeout: .now() + .seconds(2))
    }

    /// Reads `https://HOST[:PORT][/PATH[?QUERY]]` as ``init(url:timeoutMilliseconds:connections:)`` takes it; the host
    /// may be a name, an IPv4 address or a bracketed IPv6 address; the port defaults to 443; a `#fragment` is
    /// dropped (it is never sent). The same rules as the http transport's URLs, with the `https` scheme.
    package static func endpoint(_ text: String) throws(HTTPSEndpointError) -> URL {
        guard text.lowercased().hasPrefix("https://") else {
            throw HTTPSEndpointError(
                url: text, message: "expected an https:// URL such as https://staging.example.com/notifications")
        }
        let withoutFragment = String(text.prefix { $0 != "#" })
        guard withoutFragment.allSatisfy({ $0.isASCII && $0 > " " && $0 != "\u{7F}" }) else {
            throw HTTPSEndpointError(
                url: text, message: "the URL must be ASCII without spaces (percent-encode the rest)")
        }
        guard let url = URL(string: withoutFragment), let components = URLComponents(string: withoutFragment) else {
            throw HTTPSEndpointError(url: text, message: "not a URL")
        }
        guard components.user == nil && components.password == nil else {
            throw HTTPSEndpointError(url: text, message: "user information in the URL is not supported")
        }
        guard let host = components.host, !host.isEmpty else {
            throw HTTPSEndpointError(url: text, message: "the URL has no host")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw HTTPSEndpointError(url: text, message: "the port must be a number from 1 to 65535, found '\(port)'")
        }
        return url
    }

    /// The rule from a `URLSession` failure to Apple's `sendAttemptResult` ("sendAttemptResult", App Store Server API):
    /// a certificate that is not trusted or a handshake that fails `TLS_ISSUE` ("couldn't establish a TLS session or
    /// validate your certificate"); no answer in time `TIMED_OUT`; no connection (refused, unknown host, no network)
    /// `SOCKET_ISSUE`; closed or reset before an answer `NO_RESPONSE`; closed mid-answer `PREMATURE_CLOSE`; an answer
    /// that is not HTTP `INVALID_RESPONSE`; too many redirects `CIRCULAR_REDIRECT` (never met: redirects are not
    /// followed); anything else `OTHER`. `code` is the `NSURLErrorDomain` code. FoundationNetworking on Linux reports
    /// TLS failures, and an answer cut short, as `NSURLErrorUnknown` (-1) with libcurl's text (for example "SSL
    /// certificate problem: self-signed certificate"), so `description` is read for those; Apple's platforms give
    /// the codes from -1200 to -1206. Which failure Apple files under which value, beyond TLS, is not documented
    /// [assumed].
    package static func sendAttemptResult(errorCode code: Int, description: String) -> SendAttemptResult {
        switch code {
        case URLError.Code.timedOut.rawValue, URLError.Code.cancelled.rawValue:
            return .timedOut
        case URLError.Code.secureConnectionFailed.rawValue, URLError.Code.serverCertificateHasBadDate.rawValue,
            URLError.Code.serverCertificateUntrusted.rawValue, URLError.Code.serverCertificateHasUnknownRoot.rawValue,
            URLError.Code.serverCertificateNotYetValid.rawValue, URLError.Code.clientCertificateRejected.rawValue,
            URLError.Code.clientCertificateRequired.rawValue, Self.atsRequiresSecureConnection:
            return .tlsIssue
        case URLError.Code.cannotFindHost.rawValue, URLError.Code.cannotConnectToHost.rawValue,
            URLError.Code.dnsLookupFailed.rawValue, URLError.Code.notConnectedToInternet.rawValue,
            URLError.Code.internationalRoamingOff.rawValue, URLError.Code.dataNotAllowed.rawValue,
            URLError.Code.callIsActive.rawValue:
            return .socketIssue
        case URLError.Code.networkConnectionLost.rawValue, URLError.Code.badServerResponse.rawValue,
            URLError.Code.zeroByteResource.rawValue:
            return .noResponse
        case URLError.Code.cannotParseResponse.rawValue, URLError.Code.cannotDecodeRawData.rawValue,
            URLError.Code.cannotDecodeContentData.rawValue, URLError.Code.unsupportedURL.rawValue:
            // The URL was checked before the first attempt: an unsupported protocol here is the answer's (libcurl
            // reports an answer that is not HTTP/1.x, "Received HTTP/0.9", this way).
            return .invalidResponse
        case URLError.Code.httpTooManyRedirects.rawValue, URLError.Code.redirectToNonExistentLocation.rawValue:
            return .circularRedirect
        case URLError.Code.unknown.rawValue:
            return curlFailure(description)
        default:
            return .other
        }
    }

    /// `NSURLErrorAppTransportSecurityRequiresSecureConnection` (Apple's platforms).
    static let atsRequiresSecureConnection = URLError.Code.appTransportSecurityRequiresSecureConnection.rawValue

    /// Apple's value for a libcurl failure that FoundationNetworking reports only by its text (see
    /// ``sendAttemptResult(errorCode:description:)``).
    static func curlFailure(_ description: String) -> SendAttemptResult {
        let text = description.lowercased()
        if text.contains("ssl") || text.contains("tls") || text.contains("certificate") { return .tlsIssue }
        if text.hasPrefix("transfer closed with") || text.contains("partial file") { return .prematureClose }
        if text.contains("weird server reply") || text.contains("unsupported http version")
            || text.contains("http/0.9")
        {
            return .invalidResponse
        }
        if text.contains("failure when receiving data") || text.contains("failed sending data") {
            return .socketIssue
        }
        return .other
    }

    /// The request for one attempt: the body byte for byte, the http transport's headers. `Accept-Encoding:
    /// identity` replaces libcurl's list of compressions (the answer's body is never read for meaning).
    func urlRequest(_ request: DeliveryRequest) -> URLRequest {
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = "POST"
        urlRequest.httpBody = Data(request.body.utf8)
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        urlRequest.setValue("simctl", forHTTPHeaderField: "User-Agent")
        urlRequest.setValue("*/*", forHTTPHeaderField: "Accept")
        urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        // The attempt's virtual instant, as the http transport sends it (HTTPDelivery.nowHeader).
        urlRequest.setValue("\(request.instant.millisecondsSince1970)", forHTTPHeaderField: "X-Simctl-Now")
        return urlRequest
    }

    /// Makes `requests` at once (at most ``connections``), each with its own deadline of ``timeoutMilliseconds``
    /// from the start; an attempt still running at its deadline is cancelled and recorded `TIMED_OUT`.
    package func attempt(_ requests: [DeliveryRequest]) -> [DeliveryOutcome] {
        precondition(requests.count <= connections)
        let slots = AttemptSlots(count: requests.count)
        let clock = ContinuousClock()
        let started = clock.now
        /// Microseconds since the attempts started.
        @Sendable func elapsed() -> Int64 {
            let parts = started.duration(to: clock.now).components
            return parts.seconds * 1_000_000 + parts.attoseconds / 1_000_000_000_000
        }
        let tasks = requests.enumerated().map { index, request in
            session.dataTask(with: urlRequest(request)) { data, response, error in
                let outcome: DeliveryOutcome
                if let error, self.closingLock.withLock({ self.isClosing }) {
                    // Cancelled by ``close()`` (simctl stopping): the attempt did not complete [assumed: Apple has no
                    // value for an attempt its own sender abandoned; OTHER is its catch-all].
                    _ = error
                    outcome = DeliveryOutcome(
                        sendAttemptResult: .other, wallLatencyMicroseconds: elapsed(), cutShort: true)
                } else if let error {
                    let error = error as NSError
                    outcome = DeliveryOutcome(
                        sendAttemptResult: Self.sendAttemptResult(
                            errorCode: error.domain == NSURLErrorDomain ? error.code : URLError.Code.unknown.rawValue,
                            description: error.localizedDescription),
                        wallLatencyMicroseconds: elapsed())
                } else if let response = response as? HTTPURLResponse {
                    let result = SendAttemptResult.forHTTPStatus(response.statusCode)
                    // What a refusing endpoint said (the start of its body), for the report and the log.
                    outcome = DeliveryOutcome(
                        sendAttemptResult: result, httpStatus: response.statusCode,
                        wallLatencyMicroseconds: elapsed(),
                        responseStart: result == .success ? nil : data.flatMap { DeliveryOutcome.responseStart(of: $0) }
                    )
                } else {
                    outcome = DeliveryOutcome(sendAttemptResult: .invalidResponse, wallLatencyMicroseconds: elapsed())
                }
                slots.finish(index, outcome)
            }
        }
        tasks.forEach { $0.resume() }
        let deadline = Date(timeIntervalSinceNow: Double(timeoutMilliseconds) / 1000)
        if !slots.wait(until: deadline) {
            slots.finishAll(DeliveryOutcome(sendAttemptResult: .timedOut, wallLatencyMicroseconds: elapsed()))
            tasks.forEach { $0.cancel() }
        }
        return slots.values
    }
}

/// The outcomes of attempts made together, one slot each: the first outcome a slot gets is kept (an answer, or the
/// timeout that came first), and the caller waits until every slot has one or its deadline passes.
final class AttemptSlots: @unchecked Sendable {
    let condition = NSCondition()
    var outcomes: [DeliveryOutcome?]
    var remaining: Int

    init(count: Int) {
        outcomes = Array(repeating: nil, count: count)
        remaining = count
    }

    /// Records `outcome` for slot `index` unless it already has one.
    func finish(_ index: Int, _ outcome: DeliveryOutcome) {
        condition.lock()
        defer { condition.unlock() }
        guard outcomes[index] == nil else { return }
        outcomes[index] = outcome
        remaining -= 1
        if remaining == 0 { condition.broadcast() }
    }

    /// Records `outcome` for every slot that has none yet.
    func finishAll(_ outcome: DeliveryOutcome) {
        for index in outcomes.indices { finish(index, outcome) }
    }

    /// Waits until every slot has an outcome (true) or `deadline` passes (false).
    func wait(until deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while remaining > 0 {
            if !condition.wait(until: deadline) { return remaining == 0 }
        }
        return true
    }

    /// The outcomes, in slot order (every slot has one once ``wait(until:)`` or ``finishAll(_:)`` returned).
    var values: [DeliveryOutcome] {
        condition.lock()
        defer { condition.unlock() }
        return outcomes.map { $0 ?? .failure(.other) }
    }
}

/// The session's delegate. Refuses every redirect, so a 3xx answer ends the attempt as an unsuccessful status, as the
/// App Store does not follow them either (reference §6.1; docs/delivery.md); signals ``invalidated`` once the session
/// is invalid (after ``HTTPSDelivery/close()``).
final class SessionDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    let invalidated = DispatchSemaphore(value: 0)

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: Error?) { invalidated.signal() }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// An `https://` URL ``HTTPSDelivery/endpoint(_:)`` cannot use.
package struct HTTPSEndpointError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The URL as given.
    package var url: String
    /// What is wrong with it.
    package var message: String

    package var description: String { "invalid delivery URL '\(url)': \(message)" }
}
