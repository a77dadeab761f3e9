import SimctlHTTP
import SubscriptionSimulator

extension SimulatorServer {
    /// The handler an ``HTTPServer`` calls (concurrently, one call per request).
    package func handle(http request: HTTPRequest) -> HTTPResponse {
        let response = handle(
            ServerRequest(
                method: request.method, path: request.path, query: request.query,
                headers: request.headers.fields.map { (name: $0.name, value: $0.value) }, body: request.body,
                segments: request.pathSegments))
        return HTTPResponse(
            status: response.status,
            headers: HTTPHeaders(response.headers.map { HTTPField(name: $0.name, value: $0.value) }),
            body: response.body)
    }
}
