import SubscriptionSimulator

/// The routes: the App Store Server API on Apple's paths (the production and sandbox hosts map to the same server)
/// and the control API under `/simctl/v1/`, a prefix Apple's API never uses.
enum Route: String, CaseIterable, Sendable {
    case subscriptionStatuses, transactionHistory, transactionInfo, refundHistory, notificationHistory
    case requestTestNotification, testNotificationStatus
    case state, advance, actions, reset, deliveries

    /// Method and path pattern; `*` is one path segment (the `{transactionId}` or `{testNotificationToken}`).
    var pattern: (method: String, path: String) {
        switch self {
        case .subscriptionStatuses: return ("GET", "/inApps/v1/subscriptions/*")
        case .transactionHistory: return ("GET", "/inApps/v2/history/*")
        case .transactionInfo: return ("GET", "/inApps/v1/transactions/*")
        case .refundHistory: return ("GET", "/inApps/v2/refund/lookup/*")
        case .notificationHistory: return ("POST", "/inApps/v1/notifications/history")
        case .requestTestNotification: return ("POST", "/inApps/v1/notifications/test")
        case .testNotificationStatus: return ("GET", "/inApps/v1/notifications/test/*")
        case .state: return ("GET", "/simctl/v1/state")
        case .advance: return ("POST", "/simctl/v1/advance")
        case .actions: return ("POST", "/simctl/v1/actions")
        case .reset: return ("POST", "/simctl/v1/reset")
        case .deliveries: return ("GET", "/simctl/v1/deliveries")
        }
    }

    var isAppleAPI: Bool { pattern.path.hasPrefix("/inApps/") }

    /// The pattern's segments, split once.
    static let segments: [Route: [Substring]] = Dictionary(
        uniqueKeysWithValues: allCases.map {
            ($0, $0.pattern.path.split(separator: "/", omittingEmptySubsequences: false))
        })

    /// The `*` segment when the path's segments match the pattern ("" when the pattern has none); nil otherwise.
    func match(_ have: [Substring]) -> String? {
        let want = Self.segments[self]!
        guard want.count == have.count else { return nil }
        var captured = ""
        for (w, h) in zip(want, have) {
            if w == "*" { captured = String(h) } else if w != h { return nil }
        }
        return captured
    }
}

extension SimulatorServer {
    /// Every method and path the server answers, for docs and the OpenAPI check.
    package static var servedPaths: [(method: String, path: String)] { Route.allCases.map(\.pattern) }

    func route(_ request: ServerRequest) -> ServerResponse {
        var allowed: [String] = []
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false)
        for route in Route.allCases {
            guard let captured = route.match(segments) else { continue }
            guard route.pattern.method == request.method else {
                allowed.append(route.pattern.method)
                continue
            }
            if route.isAppleAPI, let problem = tokenProblem(request.header("Authorization")) {
                return .unauthorized(problem)
            }
            return answer(route, captured, request)
        }
        if !allowed.isEmpty {
            var response = ServerResponse.problem(
                405,
                "method \(request.method) is not allowed on \(request.path); use \(allowed.joined(separator: ", "))")
            response.headers.append(ServerHeader(name: "Allow", value: allowed.joined(separator: ", ")))
            return response
        }
        if request.path.hasPrefix("/inApps/"), let problem = tokenProblem(request.header("Authorization")) {
            return .unauthorized(problem)
        }
        return .problem(
            404,
            "no route for \(request.method) \(SourceText.escapingControlCharacters(String(request.path.prefix(200))))"
                + "; simctl serve answers the App Store Server API under /inApps/ and its control API under "
                + "/simctl/v1/ (docs/server.md)")
    }

    /// The bearer token check, remembering tokens already accepted (a client sends the same token for minutes):
    /// a remembered token is checked again only for its expiry.
    func tokenProblem(_ authorization: String?) -> String? {
        if let authorization, let exp = tokens.accepted(authorization) {
            if let now = configuration.token.clock?(), exp <= now { return "the token has expired" }
            return nil
        }
        if let problem = configuration.token.problem(authorization: authorization) { return problem }
        if let authorization, let exp = BearerTokenPolicy.expiry(of: authorization) {
            tokens.remember(authorization, exp: exp)
        }
        return nil
    }

    func answer(_ route: Route, _ captured: String, _ request: ServerRequest) -> ServerResponse {
        switch route {
        case .subscriptionStatuses, .transactionHistory, .transactionInfo, .refundHistory, .testNotificationStatus:
            let key =
                request.method + " " + request.path + "?"
                + request.query.map { $0.name + "=" + $0.value }
                .joined(separator: "&")
            return locked {
                if let cached = cache[key] { return cached }
                let response: ServerResponse
                do throws(ServerAPIError) {
                    response = .json(200, try read(route, captured, request.query, state))
                } catch { response = .apiError(error) }
                if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
                cache[key] = response
                return response
            }
        case .notificationHistory:
            return locked {
                do throws(ServerAPIError) {
                    return .json(200, try notificationHistory(request, state))
                } catch { return .apiError(error) }
            }
        case .requestTestNotification: return requestTestNotification()
        case .state:
            return locked {
                .json(200, stateJSON(state, customer: request.query.last { $0.name == "customer" }?.value))
            }
        case .advance: return advance(request)
        case .actions: return perform(request)
        case .reset: return reset(request)
        case .deliveries: return locked { .json(200, deliveriesJSON(state)) }
        }
    }

    // MARK: App Store Server API reads

    /// A read endpoint: the `{transactionId}` checked first (``ServerAPI/checkTransactionId(_:)``), then the query
    /// string, then the store's answer (``ServerAPI``).
    func read(_ route: Route, _ id: String, _ query: [(name: String, value: String)], _ state: ServerState)
        throws(ServerAPIError) -> JSONValue
    {
        let api = ServerAPI(state.store, signer: signer)
        switch route {
        case .subscriptionStatuses:
            try ServerAPI.checkTransactionId(id)
            let parsed = try SubscriptionStatusQuery.parse(query)
            return api.allSubscriptionStatuses(for: try api.customer(forTransactionId: id), query: parsed)
        case .transactionHistory:
            try ServerAPI.checkTransactionId(id)
            let parsed = try TransactionHistoryQuery.parse(query)
            return try api.transactionHistory(for: try api.customer(forTransactionId: id), query: parsed)
        case .transactionInfo:
            try ServerAPI.checkTransactionId(id)
            return try api.transactionInfo(transactionId: id)
        case .refundHistory:
            try ServerAPI.checkTransactionId(id)
            let parsed = try RefundHistoryQuery.parse(query)
            return try api.refundHistory(for: try api.customer(forTransactionId: id), query: parsed)
        case .testNotificationStatus:
            return try testNotificationStatus(token: id, state)
        default:
            throw .generalBadRequest
        }
    }
}
