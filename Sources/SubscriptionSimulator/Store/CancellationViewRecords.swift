/// The records of `viewCancellation` (Retention Messaging; `SimulatedStore+CancellationViews.swift`): the request
/// Apple would send, and what came of it once a front end answered it. The rules that judge an answer are in
/// `ServerAPI/RetentionMessaging.swift` and `Delivery/RetentionRealtime.swift`.
/// The request the App Store POSTs to the developer's Get Retention Message endpoint when a customer views a
/// subscription's cancellation page: `{"signedPayload": JWS}` of Apple's `DecodedRealtimeRequestBody`, signed like a
/// notification (same chain and header; Apple's library verifies it with `verify_and_decode_realtime_request`).
public struct RealtimeRequest: Hashable, Sendable {
    public var originalTransactionId: String
    public var appAppleId: Int64
    public var productId: String
    public var userLocale: String
    public var requestIdentifier: String
    public var signedDate: Instant
    public var environment: SimulatedEnvironment

    public init(
        originalTransactionId: String, appAppleId: Int64, productId: String, userLocale: String,
        requestIdentifier: String, signedDate: Instant, environment: SimulatedEnvironment
    ) {
        self.originalTransactionId = originalTransactionId
        self.appAppleId = appAppleId
        self.productId = productId
        self.userLocale = userLocale
        self.requestIdentifier = requestIdentifier
        self.signedDate = signedDate
        self.environment = environment
    }

    /// `DecodedRealtimeRequestBody`, the JWS payload.
    public var payload: JSONValue {
        .object([
            "originalTransactionId": .string(originalTransactionId), "appAppleId": .integer(appAppleId),
            "productId": .string(productId), "userLocale": .string(userLocale),
            "requestIdentifier": .string(requestIdentifier),
            "signedDate": .integer(signedDate.millisecondsSince1970), "environment": .string(environment.rawValue),
        ])
    }
}

/// What the customer saw on the cancellation page (rule retention-realtime-outcome).
public enum RetentionOutcome: Hashable, Sendable {
    /// The realtime answer's text-based message.
    case message(messageIdentifier: String)
    /// A switch-plan message: the customer may switch to `productId` (accepted with a `changePlan` action).
    case alternateProduct(messageIdentifier: String, productId: String, billingPlanType: String?)
    /// A promotional-offer message (accepted with a `redeemOffer` action).
    case promotionalOffer(messageIdentifier: String, productId: String, offerIdentifier: String, signature: String)
    /// The default message of the product and locale: the realtime answer failed (`reason`).
    case defaultMessage(messageIdentifier: String, reason: String)
    /// No retention message: the answer failed and no default message is configured (Apple: "If a default message
    /// isn't available, the system doesn't display a retention message").
    case noMessage(reason: String)

    /// The outcome's kind, as the control API shows it.
    public var kind: String {
        switch self {
        case .message: return "message"
        case .alternateProduct: return "alternateProduct"
        case .promotionalOffer: return "promotionalOffer"
        case .defaultMessage: return "defaultMessage"
        case .noMessage: return "noMessage"
        }
    }

    /// One line for logs and run output.
    public var summary: String {
        switch self {
        case .message(let id): return "message \(id) shown"
        case .alternateProduct(let id, let product, let plan):
            return "message \(id) offers switching to \(product)" + (plan.map { " (\($0))" } ?? "")
        case .promotionalOffer(let id, let product, let offer, _):
            return "message \(id) offers promotional offer \(offer) of \(product)"
        case .defaultMessage(let id, let reason): return "default message \(id) shown: \(reason)"
        case .noMessage(let reason): return "no retention message shown (no default message configured): \(reason)"
        }
    }
}

/// One cancellation-page view (the `viewCancellation` action): the request Apple would send and what came of it.
public struct CancellationView: Hashable, Sendable {
    public var customer: String
    public var request: RealtimeRequest
    /// The outcome; set by the front end that answers the view (`simctl serve` POSTs it; nil until then).
    public var outcome: RetentionOutcome?
    /// The answer's HTTP status, when one came.
    public var httpStatus: Int?
    /// How long the endpoint took, in milliseconds (wall clock, measured by the front end).
    public var elapsedMilliseconds: Int64?
    /// The realtime URL the request went to, if any.
    public var url: String?
}

/// Identifiers Retention Messaging derives (rule retention-ids): version-4-shaped UUIDs from SplitMix64 mixes of the
/// seed, the epoch, a domain and a number, as the notification UUIDs are made.
public enum RetentionIdentifiers {
    public static func derivedUUID(seed: UInt64, epoch: UInt32, domain: UInt64, number: UInt64) -> String {
        let key = NotificationKey(
            first: SplitMix64.mix(seed ^ (domain << 32) ^ UInt64(epoch)), salt: (seed << 1) ^ domain ^ UInt64(epoch))
        return IdentifierSource.notificationUUID(key: key, counter: number).description
    }
}
