import SubscriptionSimulator

/// The App Store Server API endpoints that change the store (Extend a Subscription Renewal Date, the mass extension,
/// Send Consumption Information v1 and v2, Set App Account Token, Finish Transaction; `ServerAPI/ServerAPIChanges.swift`
/// has their checks and effects).
extension SimulatorServer {
    /// One Apple change: the request is checked and applied to a copy of the store under the lock; when accepted,
    /// the copy becomes the store and the notifications it sent are delivered exactly as after a control action
    /// (`/simctl/v1/actions`: ``finish(_:_:summary:)`` makes every attempt due before the answer). A refused request
    /// changes nothing. The one place an Apple endpoint changes the server's state.
    func appleChange(_ route: Route, _ id: String, _ body: [UInt8]) -> ServerResponse {
        let pattern = route.pattern
        return exclusively("\(pattern.method) \(pattern.path)", refused: { .apiError(.busy($0)) }) {
            let answer: ServerResponse = locked {
                var copy = state.store
                let answer: ServerResponse
                do throws(ServerAPIError) {
                    answer = try Self.applyAppleChange(route, id, body, &copy)
                } catch { return .apiError(error) }
                state.store = copy
                changed()
                return answer
            }
            // The notifications the change sent are delivered outside the lock, before the answer.
            var summary = AdvanceSummary()
            _ = drive(to: nil, summary: &summary)
            return answer
        }
    }

    /// The change `route` names, on `store`, and Apple's success answer: a JSON model, `202 Accepted` (consumption
    /// information) or `200 OK` with no body (Set App Account Token, Finish Transaction).
    static func applyAppleChange(_ route: Route, _ id: String, _ body: [UInt8], _ store: inout SimulatedStore)
        throws(ServerAPIError) -> ServerResponse
    {
        switch route {
        case .extendRenewalDate:
            return .json(200, try ServerAPI.extendRenewalDate(in: &store, originalTransactionId: id, body: body))
        case .massExtendRenewalDate:
            return .json(200, try ServerAPI.extendRenewalDatesForAllActiveSubscribers(in: &store, body: body))
        case .sendConsumptionInformationV1, .sendConsumptionInformation:
            let version = route == .sendConsumptionInformationV1 ? 1 : 2
            try ServerAPI.sendConsumptionInformation(in: &store, transactionId: id, version: version, body: body)
            return ServerResponse(status: 202)
        case .setAppAccountToken:
            try ServerAPI.setAppAccountToken(in: &store, originalTransactionId: id, body: body)
            return ServerResponse(status: 200)
        case .finishTransaction:
            try ServerAPI.finishTransaction(in: &store, transactionId: id)
            return ServerResponse(status: 200)
        case .subscriptionStatuses, .transactionHistory, .transactionHistoryV1, .transactionInfo, .refundHistory,
            .notificationHistory, .requestTestNotification, .testNotificationStatus, .massExtendRenewalDateStatus,
            .appTransactionInfo, .lookUpOrderId, .state, .advance, .actions, .reset, .deliveries, .timelinePicture,
            .health, .dashboardRoot, .dashboard, .dashboardScript, .dashboardStyle, .notifications, .actionsDescription,
            .resend, .uploadImage, .deleteImage, .imageList, .uploadMessage, .deleteMessage, .messageList,
            .configureDefaultMessage, .getDefaultMessage, .deleteDefaultMessage, .configureRealtimeURL, .getRealtimeURL,
            .deleteRealtimeURL, .initiatePerformanceTest, .performanceTestResults, .retentionState, .retentionReview:
            throw .generalBadRequest
        }
    }

    /// A query text as an error message shows it: control characters escaped, at most 80 characters.
    static func shownQuery(_ text: String) -> String {
        SourceText.escapingControlCharacters(text.count > 80 ? String(text.prefix(80)) + "…" : text)
    }
}

extension ServerAPIError {
    /// A path or method the server does not serve, outside the control API: Apple's error body with
    /// `GeneralBadRequestError`'s code (4000000) and the HTTP status (404, 405), so Apple's clients read an error code
    /// [assumed: Apple documents no code for an unknown path].
    static func routing(_ status: Int, _ message: String) -> ServerAPIError {
        ServerAPIError(httpStatus: status, errorCode: 4_000_000, errorMessage: message)
    }
}
