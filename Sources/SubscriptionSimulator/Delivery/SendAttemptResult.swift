/// Apple's `sendAttemptResult`: what the App Store recorded for one attempt to send a notification to the developer's
/// server. Wire values are Apple's exactly (App Store Server API, `sendAttemptResult`; App Store Server Library
/// `SendAttemptResult`; reference §6.1).
public enum SendAttemptResult: String, CaseIterable, Hashable, Sendable {
    /// `SUCCESS`: the server answered HTTP 200–206.
    case success = "SUCCESS"
    /// `TIMED_OUT`: no complete answer within the time limit.
    case timedOut = "TIMED_OUT"
    /// `TLS_ISSUE`: the TLS handshake failed (never produced here: simctl delivers over plain `http://`).
    case tlsIssue = "TLS_ISSUE"
    /// `CIRCULAR_REDIRECT`: redirects loop (never produced here: redirects are not followed; a 3xx is an
    /// unsuccessful code, reference §6.1).
    case circularRedirect = "CIRCULAR_REDIRECT"
    /// `NO_RESPONSE`: the connection closed, or was reset, before any byte of an answer.
    case noResponse = "NO_RESPONSE"
    /// `SOCKET_ISSUE`: the connection could not be made (refused, unreachable, unknown host) or failed while sending.
    case socketIssue = "SOCKET_ISSUE"
    /// `UNSUPPORTED_CHARSET`: the answer names a character set the App Store cannot read (never produced here).
    case unsupportedCharset = "UNSUPPORTED_CHARSET"
    /// `INVALID_RESPONSE`: the answer is not HTTP/1.x, or breaks its framing or size limits.
    case invalidResponse = "INVALID_RESPONSE"
    /// `PREMATURE_CLOSE`: the connection closed in the middle of the answer.
    case prematureClose = "PREMATURE_CLOSE"
    /// `UNSUCCESSFUL_HTTP_RESPONSE_CODE`: a complete answer with a status outside 200–206.
    case unsuccessfulHTTPResponseCode = "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
    /// `OTHER`: any other failure; simctl records its chaos-injected failures (``DeliveryChaos/failFirstAttempts``)
    /// with it [assumed].
    case other = "OTHER"

    /// The rule for an answer's status: HTTP 200–206 is a successful delivery; any other code, 3xx included, asks the
    /// App Store to retry (reference §6.1; Apple, "Responding to App Store Server Notifications").
    public static func forHTTPStatus(_ status: Int) -> SendAttemptResult {
        (200...206).contains(status) ? .success : .unsuccessfulHTTPResponseCode
    }
}
