import Foundation
import SimctlHTTP
import SubscriptionSimulator

/// The entitlement query of the contract (docs/check.md): `GET TEMPLATE` with `{originalTransactionId}` replaced,
/// answered with JSON `{"active": Bool, "productId"?: String}`; a 404 means unknown (not active).
package struct EntitlementQuery {
    /// The placeholder TEMPLATE must contain.
    package static let placeholder = "{originalTransactionId}"
    package let client: HTTPClient
    /// The request target with the placeholder in it.
    package let target: String

    /// The answer's JSON (the contract's two fields).
    struct Answer: Decodable {
        var active: Bool
        var productId: String?
    }

    /// A query that cannot be judged (unreachable, a status other than 200 or 404, a body that is not the contract's
    /// JSON).
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// What is wrong with a TEMPLATE (the command line shows it as a usage error of `--entitlements`).
    package struct TemplateError: Error, Equatable {
        package var message: String
    }

    /// Reads TEMPLATE; throws when it is not an http:// URL containing the placeholder.
    package init(template: String, timeoutMilliseconds: Int64) throws(TemplateError) {
        guard template.contains(Self.placeholder) else {
            throw TemplateError(
                message: "option '--entitlements' needs a URL containing \(Self.placeholder), such as "
                    + "http://127.0.0.1:8000/entitlements/\(Self.placeholder), found '\(template)'")
        }
        let endpoint: HTTPEndpoint
        do throws(HTTPEndpointError) {
            endpoint = try HTTPEndpoint(
                url: template.replacingOccurrences(of: Self.placeholder, with: "0")
                    .replacingOccurrences(of: "{nowISO}", with: "0").replacingOccurrences(of: "{now}", with: "0"))
        } catch {
            // The endpoint's own text speaks of delivery URLs; this is the entitlement query's.
            throw TemplateError(
                message: "option '--entitlements': invalid URL '\(template)': \(error.message)")
        }
        let schemeAndAuthority = "http://" + endpoint.hostHeader
        guard let range = template.range(of: schemeAndAuthority, options: [.caseInsensitive, .anchored]) else {
            throw TemplateError(
                message: "option '--entitlements' must hold \(Self.placeholder) in its path or query, found "
                    + "'\(template)'")
        }
        var rest = String(template[range.upperBound...])
        if rest.hasPrefix("?") { rest = "/" + rest }
        client = HTTPClient(endpoint: endpoint, timeoutMilliseconds: timeoutMilliseconds)
        target = rest
    }

    /// Asks about `originalTransactionId` at the virtual instant `now` (`{now}`, `{nowISO}`, the `X-Simctl-Now`
    /// header); nil: unknown (404).
    package func ask(_ originalTransactionId: String, now: Instant? = nil) throws(Failure) -> BackendAnswer? {
        let url = "http://\(client.endpoint.hostHeader)"
        var path = target.replacingOccurrences(of: Self.placeholder, with: originalTransactionId)
        var headers: [(String, String)] = []
        if let now {
            path = path.replacingOccurrences(of: "{nowISO}", with: "\(now)")
                .replacingOccurrences(of: "{now}", with: "\(now.millisecondsSince1970)")
            headers.append((HTTPDelivery.nowHeader, "\(now.millisecondsSince1970)"))
        }
        switch client.get(path, headers: headers) {
        case .failure(let error):
            throw Failure(description: "GET \(url)\(path): \(error)")
        case .success(let response):
            if response.status == 404 { return nil }
            guard response.status == 200 else {
                throw Failure(description: "GET \(url)\(path) answered HTTP \(response.status), expected 200 or 404")
            }
            guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(response.body)) else {
                let text = String(decoding: response.body.prefix(200), as: UTF8.self)
                throw Failure(
                    description: "GET \(url)\(path) answered '\(text)', expected JSON with a boolean \"active\" "
                        + "and an optional string \"productId\"")
            }
            return BackendAnswer(active: answer.active, productId: answer.productId)
        }
    }
}
