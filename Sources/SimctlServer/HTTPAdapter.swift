import SimctlHTTP
import SubscriptionSimulator

extension SimulatorServer {
    /// The handler an ``HTTPServer`` calls (concurrently, one call per request).
    public func handle(http request: HTTPRequest) -> HTTPResponse {
        let response = handle(
            ServerRequest(
                method: request.method, path: request.path, query: request.query,
                headers: request.headers.fields.map { (name: $0.name, value: $0.value) }, body: request.body))
        return HTTPResponse(
            status: response.status,
            headers: HTTPHeaders(response.headers.map { HTTPField(name: $0.name, value: $0.value) }),
            body: response.body)
    }
}

/// Delivery over HTTP (`--deliver URL`) as a ``DeliveryTransport``.
public final class HTTPDeliveryTransport: DeliveryTransport, @unchecked Sendable {
    public let connections: Int
    public let destination: String
    let http: HTTPDelivery

    public init(endpoint: HTTPEndpoint, timeoutMilliseconds: Int64, connections: Int) {
        self.connections = connections
        destination = endpoint.description
        http = HTTPDelivery(endpoint: endpoint, timeoutMilliseconds: timeoutMilliseconds, connections: connections)
    }

    public func attempt(_ requests: [DeliveryRequest]) -> [DeliveryOutcome] { http.attempt(requests) }

    public func close() { http.close() }
}
