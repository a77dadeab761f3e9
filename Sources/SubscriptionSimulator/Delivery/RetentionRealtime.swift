import SimctlCrypto

/// Retention Messaging's requests to the developer's Get Retention Message endpoint (realtime and performance test):
/// what came back (measured by the HTTP layer, `SimctlHTTPDelivery.HTTPRealtimeTransport`) and how an answer is
/// judged. Pure: the store records, the transport makes the request, these rules decide.

/// What came back from one realtime request (measured by the HTTP layer).
public struct RealtimeAnswer: Sendable {
    /// The HTTP status; nil when no complete answer came (then `failure` says why).
    public var status: Int?
    public var body: [UInt8]
    public var failure: SendAttemptResult?
    public var elapsedMicroseconds: Int64
    /// Why no request could be made (an https URL this client cannot reach, ...), for the outcome's reason.
    public var detail: String?

    public init(
        status: Int?, body: [UInt8], failure: SendAttemptResult?, elapsedMicroseconds: Int64, detail: String? = nil
    ) {
        self.status = status
        self.body = body
        self.failure = failure
        self.elapsedMicroseconds = elapsedMicroseconds
        self.detail = detail
    }

    public var elapsedMilliseconds: Int64 { (elapsedMicroseconds + 999) / 1000 }
}

/// Makes realtime requests (the HTTP layer: `SimctlHTTPDelivery.HTTPRealtimeTransport`; a closure in tests).
public protocol RealtimeTransport: Sendable {
    /// POSTs `body` to `url` within `timeoutMilliseconds` and measures the answer.
    func post(_ body: [UInt8], to url: String, timeoutMilliseconds: Int64) -> RealtimeAnswer
}

extension RetentionMessaging {
    /// Rule retention-realtime-outcome: the outcome of a realtime answer. A transport failure, a status other than
    /// 200, an answer later than 700 ms, a body that is not a `RealtimeResponseBody` with exactly one option, or an
    /// option that names a message not `APPROVED` (or with an image where Apple forbids one), a product outside the
    /// subscription's group, an offer the catalogue does not have or a promotional-offer signature that does not
    /// verify, all fall back to the default message (Apple: "If your server response fails for any reason, the
    /// system displays a default retention message"). `offerKey`: the developer's key (`--api-key-pem`) that
    /// promotional-offer signatures must verify with; without it their form is checked and the signature is not.
    package func outcome(
        of answer: RealtimeAnswer?, for request: RealtimeRequest, catalog: Catalog, bundleId: String,
        offerKey: P256.PublicKey?
    ) -> RetentionOutcome {
        let problem: String
        switch chosen(answer, request, catalog, bundleId, offerKey) {
        case .success(let outcome): return outcome
        case .failure(let reason): problem = reason.text
        }
        if let id = defaultMessage(productId: request.productId, locale: request.userLocale) {
            return .defaultMessage(messageIdentifier: id, reason: problem)
        }
        return .noMessage(reason: problem)
    }

    struct AnswerProblem: Error {
        var text: String
        init(_ text: String) { self.text = text }
    }

    func chosen(
        _ answer: RealtimeAnswer?, _ request: RealtimeRequest, _ catalog: Catalog, _ bundleId: String,
        _ offerKey: P256.PublicKey?
    ) -> Result<RetentionOutcome, AnswerProblem> {
        guard let answer else { return .failure(AnswerProblem("no realtime URL is configured")) }
        if let failure = answer.failure {
            return .failure(
                AnswerProblem(
                    "the request failed (\(failure.rawValue)\(answer.detail.map { ": " + $0 } ?? "")) after "
                        + "\(answer.elapsedMilliseconds) ms"))
        }
        guard answer.status == 200 else {
            return .failure(
                AnswerProblem("the endpoint answered HTTP \(answer.status.map(String.init) ?? "?"), not 200"))
        }
        guard answer.elapsedMilliseconds <= Self.responseTimeLimitMilliseconds else {
            return .failure(
                AnswerProblem(
                    "the endpoint answered in \(answer.elapsedMilliseconds) ms, over Apple's "
                        + "\(Self.responseTimeLimitMilliseconds) ms limit"))
        }
        guard let value = try? CanonicalJSON.parse(String(decoding: answer.body, as: UTF8.self)),
            case .object(let members) = value
        else { return .failure(AnswerProblem("the answer is not a JSON object (RealtimeResponseBody)")) }
        let options = ["message", "alternateProduct", "promotionalOffer", "advancedCommerceInfo"].filter {
            members[$0] != nil && members[$0] != .null
        }
        guard options.count == 1, case .object(let option) = members[options[0]]! else {
            return .failure(
                AnswerProblem(
                    "a RealtimeResponseBody has exactly one of message, alternateProduct, promotionalOffer, "
                        + "advancedCommerceInfo (an object); found \(options.isEmpty ? "none" : options.joined(separator: ", "))"
                ))
        }
        if options[0] == "advancedCommerceInfo" {
            return .failure(
                AnswerProblem("advancedCommerceInfo for a subscription that is not an Advanced Commerce subscription"))
        }
        guard let rawId = option["messageIdentifier"]?.stringValue,
            let id = try? Self.uuid(rawId, .generalBadRequest)
        else { return .failure(AnswerProblem("\(options[0]).messageIdentifier is missing or not a UUID")) }
        guard let message = message(id) else { return .failure(AnswerProblem("message \(id) was never uploaded")) }
        guard isDisplayable(message) else {
            return .failure(AnswerProblem("message \(id) (or its image) is not APPROVED"))
        }
        switch options[0] {
        case "message":
            return .success(.message(messageIdentifier: id))
        case "alternateProduct":
            guard message.imageIdentifier == nil else {
                return .failure(AnswerProblem("a switch-plan message has no image; message \(id) has one"))
            }
            guard let product = option["productId"]?.stringValue else {
                return .failure(AnswerProblem("alternateProduct.productId is missing"))
            }
            if let problem = Self.sameGroupProblem(product, of: request.productId, catalog) {
                return .failure(AnswerProblem(problem))
            }
            var plan: String?
            if let given = option["billingPlanType"], given != .null {
                guard let text = given.stringValue, text == "BILLED_UPFRONT" || text == "MONTHLY" else {
                    return .failure(AnswerProblem("alternateProduct.billingPlanType is BILLED_UPFRONT or MONTHLY"))
                }
                if text == "MONTHLY" && catalog[product]?.monthlyCommitment == nil {
                    return .failure(AnswerProblem("\(product) has no monthly billing plan (billingPlanType MONTHLY)"))
                }
                plan = text
            }
            return .success(.alternateProduct(messageIdentifier: id, productId: product, billingPlanType: plan))
        default:
            guard message.imageIdentifier == nil else {
                return .failure(AnswerProblem("a promotional-offer message has no image; message \(id) has one"))
            }
            return offer(option, id, request, catalog, bundleId, offerKey)
        }
    }

    /// Apple: "The suggested subscription needs to be in the same subscription group as the current subscription".
    static func sameGroupProblem(_ product: String, of current: String, _ catalog: Catalog) -> String? {
        guard let offered = catalog[product], offered.isSubscription else {
            return "\(product) is not an auto-renewable subscription of the catalogue"
        }
        guard offered.group == catalog[current]?.group else {
            return "\(product) is not in the subscription group of \(current)"
        }
        return nil
    }

    /// A promotional offer: exactly one signature (V2 a JWS, V1 Apple's older fields), naming a promotional offer of
    /// a product in the subscription's group, and verifying with the developer's key when one is given.
    func offer(
        _ option: [String: JSONValue], _ id: String, _ request: RealtimeRequest, _ catalog: Catalog,
        _ bundleId: String, _ key: P256.PublicKey?
    ) -> Result<RetentionOutcome, AnswerProblem> {
        let v2 = option["promotionalOfferSignatureV2"].flatMap { $0 == .null ? nil : $0 }
        let v1 = option["promotionalOfferSignatureV1"].flatMap { $0 == .null ? nil : $0 }
        let product: String
        let offer: String
        let version: String
        switch (v2, v1) {
        case (let jws?, nil):
            guard let text = jws.stringValue, let header = try? JWS.decodeHeader(text),
                let payload = try? JWS.decodePayload(text)
            else { return .failure(AnswerProblem("promotionalOfferSignatureV2 is not a compact JWS")) }
            guard header.value(at: "alg")?.stringValue == "ES256" else {
                return .failure(AnswerProblem("promotionalOfferSignatureV2's alg is not ES256"))
            }
            guard payload.value(at: "aud")?.stringValue == "promotional-offer" else {
                return .failure(AnswerProblem("promotionalOfferSignatureV2's aud is not promotional-offer"))
            }
            guard payload.value(at: "bid")?.stringValue == bundleId else {
                return .failure(
                    AnswerProblem("promotionalOfferSignatureV2's bid is not the app's bundle id \(bundleId)"))
            }
            guard let p = payload.value(at: "productId")?.stringValue,
                let o = payload.value(at: "offerIdentifier")?.stringValue
            else { return .failure(AnswerProblem("promotionalOfferSignatureV2 lacks productId or offerIdentifier")) }
            if let key {
                let parts = text.split(separator: ".", omittingEmptySubsequences: false)
                guard let raw = Base64URL.decode(String(parts[2])),
                    let signature = try? ECDSASignature(rawRepresentation: raw),
                    key.isValidSignature(signature, for: Array("\(parts[0]).\(parts[1])".utf8))
                else {
                    return .failure(
                        AnswerProblem("promotionalOfferSignatureV2 does not verify with the key of --api-key-pem"))
                }
            }
            product = p
            offer = o
            version = "V2"
        case (nil, .object(let fields)?):
            guard let p = fields["productId"]?.stringValue, let o = fields["offerIdentifier"]?.stringValue,
                let nonce = fields["nonce"]?.stringValue, let timestamp = fields["timestamp"]?.integerValue,
                let keyId = fields["keyId"]?.stringValue, let encoded = fields["encodedSignature"]?.stringValue
            else {
                return .failure(
                    AnswerProblem(
                        "promotionalOfferSignatureV1 needs productId, offerIdentifier, nonce, timestamp, keyId and "
                            + "encodedSignature"))
            }
            if let key {
                let token = fields["appAccountToken"]?.stringValue ?? ""
                let signed = [bundleId, keyId, p, o, token.lowercased(), nonce.lowercased(), String(timestamp)]
                    .joined(separator: "\u{2063}")
                guard let der = Base64URL.decode(Self.base64URL(encoded)),
                    let signature = try? ECDSASignature(derRepresentation: der),
                    key.isValidSignature(signature, for: Array(signed.utf8))
                else {
                    return .failure(
                        AnswerProblem("promotionalOfferSignatureV1 does not verify with the key of --api-key-pem"))
                }
            }
            product = p
            offer = o
            version = "V1"
        default:
            return .failure(
                AnswerProblem(
                    "a promotionalOffer has exactly one of promotionalOfferSignatureV2, promotionalOfferSignatureV1"))
        }
        if let problem = Self.sameGroupProblem(product, of: request.productId, catalog) {
            return .failure(AnswerProblem(problem))
        }
        guard catalog[product]?.offers.contains(where: { $0.identifier == offer && $0.type == .promotional }) == true
        else { return .failure(AnswerProblem("\(product) has no promotional offer '\(offer)' in the catalogue")) }
        return .success(
            .promotionalOffer(messageIdentifier: id, productId: product, offerIdentifier: offer, signature: version))
    }

    /// Base64 (standard alphabet, padded) as base64url without padding, for ``Base64URL/decode(_:)``.
    static func base64URL(_ text: String) -> String {
        String(
            text.compactMap { c -> Character? in
                switch c {
                case "+": return "-"
                case "/": return "_"
                case "=": return nil
                default: return c
                }
            })
    }
}

extension RetentionMessaging {
    /// How one performance-test request failed, or nil when it succeeded: a transport failure as such, a status other
    /// than 200 `UNSUCCESSFUL_HTTP_RESPONSE_CODE`, later than `threshold` `TIMED_OUT`, a body that is not a
    /// `RealtimeResponseBody` with exactly one option `INVALID_RESPONSE` (rule retention-performance-pass; the
    /// `failures` map's keys are Apple's `SendAttemptResult` values, as its library reads them).
    public static func performanceFailure(_ answer: RealtimeAnswer, threshold: Int64) -> SendAttemptResult? {
        if let failure = answer.failure { return failure }
        guard answer.status == 200 else { return .unsuccessfulHTTPResponseCode }
        guard answer.elapsedMilliseconds <= threshold else { return .timedOut }
        guard isResponseBodyShape(answer.body) else { return .invalidResponse }
        return nil
    }
}
