import SubscriptionSimulator

/// A request as the server's routes see it, independent of the socket it came from (tests build these directly).
package struct ServerRequest: Sendable {
    package var method: String
    /// Percent-decoded, without the query (for logs and messages; routing reads ``segments``).
    package var path: String
    /// The path's segments, split at `/` before percent-decoding and then decoded (``HTTPRequest/pathSegments``): an
    /// escaped `%2F` stays inside its segment. Routes match these.
    package var segments: [String]
    /// Query parameters in order, repeated names allowed, percent-decoded.
    package var query: [(name: String, value: String)]
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]

    package init(
        method: String, path: String, query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = [], body: [UInt8] = [], segments: [String]? = nil
    ) {
        self.method = method
        self.path = path
        self.segments = segments ?? path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The first header of that name (case-insensitive).
    package func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    /// The request line as the log shows it: method, path and query (control characters escaped).
    package var summary: String {
        var text = method + " " + path
        if !query.isEmpty { text += "?" + query.map { "\($0.name)=\($0.value)" }.joined(separator: "&") }
        if text.count > 300 { text = String(text.prefix(300)) + "…" }
        return SourceText.escapingControlCharacters(text)
    }
}

/// A response: status, headers, body.
package struct ServerResponse: Error, Hashable, Sendable {
    package var status: Int
    package var headers: [ServerHeader]
    package var body: [UInt8]

    package init(status: Int, headers: [ServerHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body, canonical (sorted keys, no spaces), `Content-Type: application/json`.
    package static func json(_ status: Int, _ value: JSONValue) -> ServerResponse {
        ServerResponse(
            status: status, headers: [ServerHeader(name: "Content-Type", value: "application/json")],
            body: Array(CanonicalJSON.string(value).utf8))
    }

    /// An App Store Server API error: `{"errorCode": ..., "errorMessage": ...}` with Apple's HTTP status.
    package static func apiError(_ error: ServerAPIError) -> ServerResponse {
        json(error.httpStatus, error.body)
    }

    /// A control API or routing error: `{"error": "<message>"}`.
    package static func problem(_ status: Int, _ message: String) -> ServerResponse {
        json(status, .object(["error": .string(message)]))
    }

    /// Apple's 401: the JWT is missing or invalid. Apple documents no body for it (`401 Unauthorized`, "The JSON
    /// Web Token (JWT) in the authorization header is invalid"), so the body is empty; the reason is in the log
    /// and in the `WWW-Authenticate` header's `error_description` [assumed].
    package static func unauthorized(_ reason: String) -> ServerResponse {
        let quoted = reason.replacingOccurrences(of: "\"", with: "'")
        return ServerResponse(
            status: 401,
            headers: [
                ServerHeader(
                    name: "WWW-Authenticate", value: "Bearer error=\"invalid_token\", error_description=\"\(quoted)\"")
            ])
    }

    package var bodyText: String { String(decoding: body, as: UTF8.self) }
}

package struct ServerHeader: Hashable, Sendable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
