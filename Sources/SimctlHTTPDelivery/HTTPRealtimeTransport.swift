import SimctlHTTP
import SubscriptionSimulator

/// Retention Messaging's realtime requests over HTTP (``RealtimeTransport``): one POST of the signed
/// `RealtimeRequestBody` to the developer's Get Retention Message endpoint, on a fresh connection (Apple's requests
/// arrive one per cancellation-page view), with the answer and its wall-clock time measured here (the library never
/// reads a clock). `http://` only: an `https://` URL fails with the reason (this client has no TLS).
public struct HTTPRealtimeTransport: RealtimeTransport {
    public init() {}

    public func post(_ body: [UInt8], to url: String, timeoutMilliseconds: Int64) -> RealtimeAnswer {
        let endpoint: HTTPEndpoint
        do throws(HTTPEndpointError) { endpoint = try HTTPEndpoint(url: url) } catch {
            return RealtimeAnswer(status: nil, body: [], failure: .other, elapsedMicroseconds: 0, detail: error.message)
        }
        let client = HTTPClient(endpoint: endpoint, timeoutMilliseconds: timeoutMilliseconds)
        defer { client.close() }
        let clock = ContinuousClock()
        let started = clock.now
        let result = client.post(body)
        let elapsed = started.duration(to: clock.now).components
        let microseconds = elapsed.seconds * 1_000_000 + elapsed.attoseconds / 1_000_000_000_000
        switch result {
        case .success(let response):
            return RealtimeAnswer(
                status: response.status, body: response.body, failure: nil, elapsedMicroseconds: microseconds)
        case .failure:
            return RealtimeAnswer(
                status: nil, body: [], failure: HTTPDelivery.outcome(result), elapsedMicroseconds: microseconds)
        }
    }
}
