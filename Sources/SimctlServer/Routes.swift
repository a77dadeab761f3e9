import SubscriptionSimulator

/// The routes: the App Store Server API and the Retention Messaging API on Apple's paths (the production and sandbox
/// hosts map to the same server; Apple's Advanced Commerce API is not served) and the control API under
/// `/simctl/v1/`, a prefix Apple's API never uses. Paths are Apple's library's (`api_client.py`).
enum Route: String, CaseIterable, Sendable {
    case subscriptionStatuses, transactionHistory, transactionHistoryV1, transactionInfo, refundHistory
    case notificationHistory, requestTestNotification, testNotificationStatus
    case massExtendRenewalDate, massExtendRenewalDateStatus, extendRenewalDate
    case sendConsumptionInformationV1, sendConsumptionInformation, appTransactionInfo, setAppAccountToken
    case finishTransaction, lookUpOrderId
    // Retention Messaging API (`RetentionEndpoints.swift`).
    case uploadImage, deleteImage, imageList, uploadMessage, deleteMessage, messageList
    case configureDefaultMessage, getDefaultMessage, deleteDefaultMessage
    case configureRealtimeURL, getRealtimeURL, deleteRealtimeURL, initiatePerformanceTest, performanceTestResults
    case retentionState, retentionReview
    case state, advance, actions, reset, deliveries, timelinePicture, health
    // The dashboard and the endpoints it uses (issue 48; `Dashboard.swift`, `DashboardEndpoints.swift`).
    case dashboardRoot, dashboard, dashboardScript, dashboardStyle, notifications, actionsDescription, resend

    /// Method and path pattern; each `*` is one path segment (a `{transactionId}`, `{productId}`, ...). A path
    /// matching several patterns takes the first with its method (a literal segment is listed before a `*` there).
    var pattern: (method: String, path: String) {
        switch self {
        case .subscriptionStatuses: return ("GET", "/inApps/v1/subscriptions/*")
        case .transactionHistory: return ("GET", "/inApps/v2/history/*")
        case .transactionHistoryV1: return ("GET", "/inApps/v1/history/*")
        case .transactionInfo: return ("GET", "/inApps/v1/transactions/*")
        case .refundHistory: return ("GET", "/inApps/v2/refund/lookup/*")
        case .notificationHistory: return ("POST", "/inApps/v1/notifications/history")
        case .requestTestNotification: return ("POST", "/inApps/v1/notifications/test")
        case .testNotificationStatus: return ("GET", "/inApps/v1/notifications/test/*")
        case .massExtendRenewalDate: return ("POST", "/inApps/v1/subscriptions/extend/mass")
        case .massExtendRenewalDateStatus: return ("GET", "/inApps/v1/subscriptions/extend/mass/*/*")
        case .extendRenewalDate: return ("PUT", "/inApps/v1/subscriptions/extend/*")
        case .sendConsumptionInformationV1: return ("PUT", "/inApps/v1/transactions/consumption/*")
        case .sendConsumptionInformation: return ("PUT", "/inApps/v2/transactions/consumption/*")
        case .appTransactionInfo: return ("GET", "/inApps/v1/transactions/appTransactions/*")
        case .setAppAccountToken: return ("PUT", "/inApps/v1/transactions/*/appAccountToken")
        case .finishTransaction: return ("POST", "/inApps/v1/transactions/*/finish")
        case .lookUpOrderId: return ("GET", "/inApps/v1/lookup/*")
        case .imageList: return ("GET", "/inApps/v1/messaging/image/list")
        case .uploadImage: return ("PUT", "/inApps/v1/messaging/image/*")
        case .deleteImage: return ("DELETE", "/inApps/v1/messaging/image/*")
        case .messageList: return ("GET", "/inApps/v1/messaging/message/list")
        case .uploadMessage: return ("PUT", "/inApps/v1/messaging/message/*")
        case .deleteMessage: return ("DELETE", "/inApps/v1/messaging/message/*")
        case .configureDefaultMessage: return ("PUT", "/inApps/v1/messaging/default/*/*")
        case .getDefaultMessage: return ("GET", "/inApps/v1/messaging/default/*/*")
        case .deleteDefaultMessage: return ("DELETE", "/inApps/v1/messaging/default/*/*")
        case .configureRealtimeURL: return ("PUT", "/inApps/v1/messaging/realtime/url")
        case .getRealtimeURL: return ("GET", "/inApps/v1/messaging/realtime/url")
        case .deleteRealtimeURL: return ("DELETE", "/inApps/v1/messaging/realtime/url")
        case .initiatePerformanceTest: return ("POST", "/inApps/v1/messaging/performanceTest")
        case .performanceTestResults: return ("GET", "/inApps/v1/messaging/performanceTest/result/*")
        case .retentionState: return ("GET", "/simctl/v1/retention")
        case .retentionReview: return ("POST", "/simctl/v1/retention/review")
        case .state: return ("GET", "/simctl/v1/state")
        case .advance: return ("POST", "/simctl/v1/advance")
        case .actions: return ("POST", "/simctl/v1/actions")
        case .reset: return ("POST", "/simctl/v1/reset")
        case .deliveries: return ("GET", "/simctl/v1/deliveries")
        case .timelinePicture: return ("GET", "/simctl/v1/timeline.svg")
        case .health: return ("GET", "/simctl/v1/health")
        case .dashboardRoot: return ("GET", "/")
        case .dashboard: return ("GET", "/simctl/v1/ui")
        case .dashboardScript: return ("GET", "/simctl/v1/ui/dashboard.js")
        case .dashboardStyle: return ("GET", "/simctl/v1/ui/dashboard.css")
        case .notifications: return ("GET", "/simctl/v1/notifications")
        case .actionsDescription: return ("GET", "/simctl/v1/actions")
        case .resend: return ("POST", "/simctl/v1/notifications/*/resend")
        }
    }

    var isAppleAPI: Bool { pattern.path.hasPrefix("/inApps/") }

    /// The pattern's segments, split once.
    static let segments: [Route: [String]] = Dictionary(
        uniqueKeysWithValues: allCases.map {
            ($0, $0.pattern.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init))
        })

    /// The `*` segments, in order, when the request's segments (split before percent-decoding,
    /// ``ServerRequest/segments``) match the pattern; nil otherwise.
    func match(_ have: [String]) -> [String]? {
        let want = Self.segments[self]!
        guard want.count == have.count else { return nil }
        var captured: [String] = []
        for (w, h) in zip(want, have) {
            if w == "*" { captured.append(h) } else if w != h { return nil }
        }
        return captured
    }
}

extension SimulatorServer {
    /// Every method and path the server answers, for docs and the OpenAPI check.
    package static var servedPaths: [(method: String, path: String)] { Route.allCases.map(\.pattern) }

    func route(_ request: ServerRequest) -> ServerResponse {
        if BrowserSafety.guards(request), let refusal = browserSafety.refusal(request) { return refusal }
        var allowed: [String] = []
        for route in Route.allCases {
            guard let captured = route.match(request.segments) else { continue }
            guard route.pattern.method == request.method else {
                if !allowed.contains(route.pattern.method) { allowed.append(route.pattern.method) }
                continue
            }
            if route.isAppleAPI, let problem = tokenProblem(request.header("Authorization")) {
                return .unauthorized(problem)
            }
            return answer(route, captured, request)
        }
        let control = request.segments.count > 2 && request.segments[1] == "simctl"
        let shown = SourceText.escapingControlCharacters(String(request.path.prefix(200)))
        if !allowed.isEmpty {
            let message = "method \(request.method) is not allowed on \(shown); use \(allowed.joined(separator: ", "))"
            var response = control ? ServerResponse.problem(405, message) : .apiError(.routing(405, message))
            response.headers.append(ServerHeader(name: "Allow", value: allowed.joined(separator: ", ")))
            return response
        }
        if request.path.hasPrefix("/inApps/"), let problem = tokenProblem(request.header("Authorization")) {
            return .unauthorized(problem)
        }
        let message =
            "no route for \(request.method) \(shown); simctl serve answers the App Store Server API under /inApps/ "
            + "and its control API under /simctl/v1/ (docs/server.md)"
        return control ? .problem(404, message) : .apiError(.routing(404, message))
    }

    /// The bearer token check, remembering tokens already accepted (a client sends the same token for minutes):
    /// a remembered token is checked again only for its expiry.
    func tokenProblem(_ authorization: String?) -> String? {
        if let authorization, let exp = tokens.accepted(authorization) {
            if let now = configuration.token.clock?(), exp <= now {
                return BearerTokenPolicy.expired(exp: exp, now: now)
            }
            return nil
        }
        if let problem = configuration.token.problem(authorization: authorization) { return problem }
        if let authorization, let exp = BearerTokenPolicy.expiry(of: authorization) {
            tokens.remember(authorization, exp: exp)
        }
        return nil
    }

    func answer(_ route: Route, _ captured: [String], _ request: ServerRequest) -> ServerResponse {
        let id = captured.first ?? ""
        switch route {
        case .subscriptionStatuses, .transactionHistory, .transactionHistoryV1, .transactionInfo, .refundHistory,
            .testNotificationStatus, .massExtendRenewalDateStatus, .appTransactionInfo, .lookUpOrderId:
            // NUL cannot occur in a decoded segment or query item (the parser refuses `%00`), so it separates them.
            let key =
                request.method + "\u{0}" + request.segments.joined(separator: "\u{0}") + "\u{0}?"
                + request.query.map { $0.name + "\u{0}=" + $0.value }
                .joined(separator: "\u{0}")
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
        case .massExtendRenewalDate, .extendRenewalDate, .sendConsumptionInformationV1, .sendConsumptionInformation,
            .setAppAccountToken, .finishTransaction:
            return appleChange(route, id, request.body)
        case .state:
            // The large answers are built from a snapshot taken under the lock (a copy that shares the store's
            // storage), without holding it: other requests, readers and the one change alike, go on meanwhile.
            let snapshot = locked { state }
            switch Self.stateQuery(request.query, snapshot) {
            case .failure(let response): return response
            case .success(let query):
                return ServerResponse(
                    status: 200, headers: [ServerHeader(name: "Content-Type", value: "application/json")],
                    body: Array(stateAnswer(snapshot, query).utf8))
            }
        case .uploadImage, .deleteImage, .imageList, .uploadMessage, .deleteMessage, .messageList,
            .configureDefaultMessage, .getDefaultMessage, .deleteDefaultMessage, .configureRealtimeURL, .getRealtimeURL,
            .deleteRealtimeURL, .initiatePerformanceTest, .performanceTestResults:
            return retention(route, captured, request)
        case .retentionState:
            if let unknown = request.query.first {
                return .problem(
                    400, "unknown query parameter '\(Self.shownQuery(unknown.name))'; retention takes none")
            }
            let snapshot = locked { state }
            return .json(200, retentionJSON(snapshot))
        case .retentionReview: return reviewRetention(request)
        case .advance: return advance(request)
        case .actions: return perform(request)
        case .reset: return reset(request)
        case .deliveries:
            switch Self.deliveryPage(request.query) {
            case .failure(let response): return response
            case .success(let page):
                let snapshot = locked { state }
                return .json(200, deliveriesJSON(snapshot, page: page))
            }
        case .timelinePicture:
            let snapshot = locked { state }
            switch Self.pictureQuery(request.query, snapshot, start: configuration.scenario.start) {
            case .failure(let response): return response
            case .success(let view): return timelinePicture(snapshot, view: view)
            }
        case .health:
            // For container health checks and start-up waits: answered without the store's lock, so a long advance
            // never makes a live server look dead.
            if let unknown = request.query.first {
                return .problem(400, "unknown query parameter '\(Self.shownQuery(unknown.name))'; health takes none")
            }
            return .json(200, .object(["status": .string("ok")]))
        case .dashboardRoot, .dashboard, .dashboardScript, .dashboardStyle:
            return Dashboard.page(route, request)
        case .notifications: return notificationList(request)
        case .actionsDescription: return actionsDescription(request)
        case .resend: return resend(notificationUUID: id)
        }
    }

    // MARK: App Store Server API reads

    /// A read endpoint: the `{transactionId}` checked first (``ServerAPI/checkTransactionId(_:)``), then the query
    /// string, then the store's answer (``ServerAPI``).
    func read(_ route: Route, _ captured: [String], _ query: [(name: String, value: String)], _ state: ServerState)
        throws(ServerAPIError) -> JSONValue
    {
        let api = ServerAPI(state.store, signer: signer)
        let id = captured.first ?? ""
        switch route {
        case .subscriptionStatuses:
            try ServerAPI.checkTransactionId(id)
            let parsed = try SubscriptionStatusQuery.parse(query)
            return api.allSubscriptionStatuses(for: try api.customer(forTransactionId: id), query: parsed)
        case .transactionHistory:
            try ServerAPI.checkTransactionId(id)
            let parsed = try TransactionHistoryQuery.parse(query)
            return try api.transactionHistory(for: try api.customer(forTransactionId: id), query: parsed)
        case .transactionHistoryV1:
            try ServerAPI.checkTransactionId(id)
            let parsed = try TransactionHistoryQuery.parse(query)
            return try api.transactionHistoryV1(for: try api.customer(forTransactionId: id), query: parsed)
        case .transactionInfo:
            try ServerAPI.checkTransactionId(id)
            return try api.transactionInfo(transactionId: id)
        case .refundHistory:
            try ServerAPI.checkTransactionId(id)
            let parsed = try RefundHistoryQuery.parse(query)
            return try api.refundHistory(for: try api.customer(forTransactionId: id), query: parsed)
        case .testNotificationStatus:
            return try testNotificationStatus(token: id, state)
        case .massExtendRenewalDateStatus:
            return try api.massExtensionStatus(productId: id, requestIdentifier: captured.last ?? "")
        case .appTransactionInfo:
            return try api.appTransactionInfo(transactionId: id)
        case .lookUpOrderId:
            return api.lookUpOrderId(id)
        case .notificationHistory, .requestTestNotification, .massExtendRenewalDate, .extendRenewalDate,
            .sendConsumptionInformationV1, .sendConsumptionInformation, .setAppAccountToken, .finishTransaction,
            .state, .advance, .actions, .reset, .deliveries, .timelinePicture, .health, .dashboardRoot, .dashboard,
            .dashboardScript, .dashboardStyle, .notifications, .actionsDescription, .resend, .uploadImage, .deleteImage,
            .imageList, .uploadMessage, .deleteMessage, .messageList, .configureDefaultMessage, .getDefaultMessage,
            .deleteDefaultMessage, .configureRealtimeURL, .getRealtimeURL, .deleteRealtimeURL, .initiatePerformanceTest,
            .performanceTestResults, .retentionState, .retentionReview:
            throw .generalBadRequest
        }
    }
}
