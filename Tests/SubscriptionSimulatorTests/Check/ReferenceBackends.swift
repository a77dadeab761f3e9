import SubscriptionSimulator

/// A backend written the way docs/check.md recommends, in process, with an optional classic bug: the reference the
/// check's tests run against. The correct one de-duplicates on `notificationUUID`, keeps the newest notification per
/// `originalTransactionId` by `signedDate`, grants a subscription while `data.status` is 1 (active) or 4 (billing
/// grace period), to the renewal info's `productId`, and a non-consumable unless its transaction is revoked.
final class ReferenceBackend: @unchecked Sendable {
    /// One classic bug (issue 26's first paragraph), or none.
    enum Bug: CaseIterable {
        case none
        /// Ends access on any `DID_FAIL_TO_RENEW`, grace period included.
        case endsAccessOnAnyFailToRenew
        /// Ignores `REVOKE`.
        case ignoresRevoke
        /// Applies a retried older notification over a newer one (no `signedDate` comparison).
        case appliesOlderNotifications
        /// Ends access on every `REFUND`, a past renewal's included.
        case endsAccessOnAnyRefund
        /// Does not restore access on `DID_RENEW` / `BILLING_RECOVERY`.
        case ignoresBillingRecovery
    }

    /// What the backend keeps per `originalTransactionId`.
    struct Record {
        var signedDate: Int64
        var active: Bool
        var productId: String
    }

    /// Its bugs (issue 47's two-bug backend has two at once).
    let bugs: Set<Bug>
    private(set) var seen: Set<String> = []
    private(set) var records: [String: Record] = [:]
    private(set) var received = 0

    init(_ bug: Bug = .none) { bugs = [bug] }
    init(bugs: Set<Bug>) { self.bugs = bugs }

    /// The webhook: decodes the JWS (unverified: the test signer's output), updates the record, answers 200.
    func receive(_ request: DeliveryRequest) -> DeliveryOutcome {
        received += 1
        guard let payload = try? JWS.decodePayload(request.item.signedPayload),
            let uuid = payload.value(at: "notificationUUID")?.stringValue,
            let type = payload.value(at: "notificationType")?.stringValue,
            let signedDate = payload.value(at: "signedDate")?.integerValue
        else { return .status(400) }
        guard seen.insert(uuid).inserted else { return .status(200) }
        guard let signedTransaction = payload.value(at: "data.signedTransactionInfo")?.stringValue,
            let transaction = try? JWS.decodePayload(signedTransaction),
            let id = transaction.value(at: "originalTransactionId")?.stringValue,
            let productId = transaction.value(at: "productId")?.stringValue
        else { return .status(200) }  // TEST, RENEWAL_EXTENSION / SUMMARY: about the app
        let subtype = payload.value(at: "subtype")?.stringValue
        // The current product is the renewal info's `productId`: a refund of a past renewal carries that renewal's
        // transaction, whose product may be an earlier plan.
        let renewal = payload.value(at: "data.signedRenewalInfo")?.stringValue.flatMap { try? JWS.decodePayload($0) }
        let currentProduct = renewal?.value(at: "productId")?.stringValue ?? productId
        if let existing = records[id], existing.signedDate > signedDate, !bugs.contains(.appliesOlderNotifications) {
            return .status(200)
        }
        if bugs.contains(.ignoresRevoke) && type == "REVOKE" { return .status(200) }
        if bugs.contains(.ignoresBillingRecovery) && type == "DID_RENEW" && subtype == "BILLING_RECOVERY" {
            return .status(200)
        }
        var active: Bool
        if let status = payload.value(at: "data.status")?.integerValue {
            active = status == 1 || status == 4
        } else if transaction.value(at: "type")?.stringValue == "Non-Consumable" {
            active = transaction.value(at: "revocationDate") == nil
        } else {
            active = records[id]?.active ?? false
        }
        if bugs.contains(.endsAccessOnAnyFailToRenew) && type == "DID_FAIL_TO_RENEW" { active = false }
        if bugs.contains(.endsAccessOnAnyRefund) && type == "REFUND" { active = false }
        records[id] = Record(signedDate: signedDate, active: active, productId: currentProduct)
        return .status(200)
    }

    /// The entitlement query: nil for an id never seen (a 404).
    func entitlement(_ originalTransactionId: String) -> BackendAnswer? {
        records[originalTransactionId].map {
            BackendAnswer(active: $0.active, productId: $0.active ? $0.productId : nil)
        }
    }

    /// The backend as the check takes it.
    var checked: CheckedBackend {
        CheckedBackend(deliver: { self.receive($0) }, entitlement: { self.entitlement($0) })
    }
}
