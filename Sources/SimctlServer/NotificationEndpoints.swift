import SubscriptionSimulator

/// Get Notification History, Request a Test Notification and Get Test Notification Status (reference §6.3, §6.4,
/// Appendix D; library `NotificationHistoryResponse`, `SendTestNotificationResponse`,
/// `CheckTestNotificationResponse`). `sendAttempts` come from the server's delivery log.
extension SimulatorServer {
    /// Apple: "up to 20" notification history records per page.
    package static let notificationHistoryPageSize = 20
    /// Apple's notification history keeps at most 6 `sendAttempts` per notification (reference §6.1).
    package static let maximumSendAttempts = 6

    func notificationHistory(_ request: ServerRequest, _ state: ServerState) throws(ServerAPIError) -> JSONValue {
        let text = String(decoding: request.body, as: UTF8.self)
        guard let body = try? CanonicalJSON.parse(text) else { throw .generalBadRequest }
        let store = state.store
        let query = try NotificationHistoryQuery.parse(body, now: store.now, environment: store.app.environment)
        var customer: String?
        if let id = query.transactionId { customer = try ServerAPI(store).customer(forTransactionId: id) }
        let fingerprint = Self.fingerprint(CanonicalJSON.string(body))
        var from = 0
        if let token = request.query.last(where: { $0.name == "paginationToken" })?.value {
            guard let position = PaginationToken(text: token), position.fingerprint == fingerprint,
                position.next <= state.records.count
            else { throw .invalidPaginationToken }
            from = position.next
        }
        // Apple: "If you choose an endDate in the future, the endpoint automatically uses the current date as the
        // endDate". So a future endDate and endDate = now answer alike: both include what was sent at now, and
        // endDate is inclusive; startDate is inclusive too [assumed: Apple does not say] (docs/server.md).
        let end = min(query.endDate, store.now)
        var page: [JSONValue] = []
        var next = state.records.count
        var hasMore = false
        var index = from
        while index < state.records.count {
            let record = state.records[index]
            defer { index += 1 }
            guard record.item.instant >= query.startDate, record.item.instant <= end else { continue }
            if let type = query.notificationType, record.type != type { continue }
            if let subtype = query.notificationSubtype, record.subtype != subtype { continue }
            if let customer, record.testToken != nil || record.item.recipient != customer { continue }
            if query.onlyFailures, state.delivery?.isDelivered(at: index) ?? false { continue }
            if page.count == Self.notificationHistoryPageSize {
                hasMore = true
                break
            }
            page.append(
                .object([
                    "signedPayload": .string(record.signedPayload),
                    "sendAttempts": sendAttempts(index, state),
                ]))
            next = index + 1
        }
        if !hasMore { next = state.records.count }
        var o: [String: JSONValue] = ["notificationHistory": .array(page), "hasMore": .bool(hasMore)]
        o["paginationToken"] = .string(PaginationToken(next: next, fingerprint: fingerprint).text)
        return .object(o)
    }

    func sendAttempts(_ index: Int, _ state: ServerState) -> JSONValue {
        let attempts = state.delivery?.sendAttempts(at: index) ?? []
        return .array(
            attempts.prefix(Self.maximumSendAttempts).map {
                .object([
                    "attemptDate": .integer($0.attemptDate.millisecondsSince1970),
                    "sendAttemptResult": .string($0.sendAttemptResult.rawValue),
                ])
            })
    }

    /// FNV-1a 64 of the request body: a pagination token is valid only with the body it was made for. `start` continues
    /// a fingerprint over several texts (the state answer's ``SimulatorServer/customersFingerprint(_:)``).
    static func fingerprint(_ text: String, continuing start: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = start
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// Request a Test Notification: a `TEST` notification is sent now to the configured URL and the attempts due
    /// now are made before the answer; `{"testNotificationToken": ...}`. `ServerNotificationURLNotFoundError` when
    /// the server runs without `--deliver`.
    func requestTestNotification() -> ServerResponse {
        guard transport != nil else { return .apiError(.serverNotificationURLNotFound) }
        return exclusively("POST /inApps/v1/notifications/test", refused: { .apiError(.busy($0)) }) {
            let request = locked {
                let request = state.store.requestTestNotification()
                changed()
                return request
            }
            var summary = AdvanceSummary()
            _ = drive(to: nil, summary: &summary)
            return .json(200, .object(["testNotificationToken": .string(request.testNotificationToken)]))
        }
    }

    /// Get Test Notification Status: `{signedPayload, sendAttempts}`. A token not in the server's form is
    /// `InvalidTestNotificationTokenError`; an unknown one `TestNotificationNotFoundError`.
    func testNotificationStatus(token: String, _ state: ServerState) throws(ServerAPIError) -> JSONValue {
        guard token.count <= 80, token.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == "-" || $0 == "_") }),
            token.split(separator: "_").count == 2
        else { throw .invalidTestNotificationToken }
        guard let index = state.testTokens[token] else { throw .testNotificationNotFound }
        return .object([
            "signedPayload": .string(state.records[index].signedPayload),
            "sendAttempts": sendAttempts(index, state),
        ])
    }
}

/// A notification history pagination token: where the next page starts in the server's notification order, and
/// the fingerprint of the request body it belongs to: `<next>.<fingerprint hex>` [assumed: Apple's are opaque].
struct PaginationToken: Hashable {
    var next: Int
    var fingerprint: UInt64

    init(next: Int, fingerprint: UInt64) {
        self.next = next
        self.fingerprint = fingerprint
    }

    init?(text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...12).contains(parts[0].count), parts[0].allSatisfy({ $0.isASCII && $0.isNumber }),
            parts[1].count == 16, let next = Int(parts[0]), let fingerprint = UInt64(parts[1], radix: 16)
        else { return nil }
        self.init(next: next, fingerprint: fingerprint)
    }

    var text: String {
        let hex = String(fingerprint, radix: 16)
        return "\(next)." + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
