// The Swift example of docs/check.md, compiled and run. DocExamplesTests checks that every ```swift block of the
// guide appears verbatim between a `docs:begin` and `docs:end` marker in this folder.
import SubscriptionSimulator
import SubscriptionSimulatorTesting
import Testing

// docs:begin check-swift-testing
/// A backend's notification handling: newest notification per originalTransactionId by signedDate, access while
/// data.status is 1 or 4, to the renewal info's product.
final class EntitlementStore {
    var seen: Set<String> = []
    var latest: [String: (signedDate: Int64, active: Bool, productId: String)] = [:]

    func receive(_ body: String) -> Int {
        let jws = String(body.dropFirst(#"{"signedPayload":""#.count).dropLast(2))
        guard let payload = try? JWS.decodePayload(jws),
            let uuid = payload.value(at: "notificationUUID")?.stringValue,
            let signedDate = payload.value(at: "signedDate")?.integerValue
        else { return 400 }
        guard seen.insert(uuid).inserted,
            let info = payload.value(at: "data.signedTransactionInfo")?.stringValue,
            let transaction = try? JWS.decodePayload(info),
            let id = transaction.value(at: "originalTransactionId")?.stringValue
        else { return 200 }
        if let known = latest[id], known.signedDate > signedDate { return 200 }
        let renewal = payload.value(at: "data.signedRenewalInfo")?.stringValue.flatMap { try? JWS.decodePayload($0) }
        let product =
            renewal?.value(at: "productId")?.stringValue ?? transaction.value(at: "productId")?.stringValue ?? ""
        let active: Bool
        if let status = payload.value(at: "data.status")?.integerValue {
            active = status == 1 || status == 4
        } else {
            active = transaction.value(at: "revocationDate") == nil  // a non-consumable
        }
        latest[id] = (signedDate, active, product)
        return 200
    }
}

@Test func backendAgreesWithTheStore() throws {
    let scenario = try ScenarioDecoder(file: "header.yaml").decode(
        """
        name: Monthly and yearly plans with a grace period
        start: 2026-03-01T09:00:00Z
        app: { bundleId: com.example.app, gracePeriod: 16d }
        products:
          - { id: com.example.monthly, type: autoRenewable, group: pro, level: 2, period: P1M, price: 4.99 }
          - { id: com.example.yearly, type: autoRenewable, group: pro, level: 1, period: P1Y, price: 49.99 }
        timeline: []
        """)
    let backend = EntitlementStore()
    BackendChecker(scenario: scenario, cases: 30, seed: 7).check(
        deliver: { request in .status(backend.receive(request.body)) },
        entitlement: { originalTransactionId in
            backend.latest[originalTransactionId].map {
                BackendAnswer(active: $0.active, productId: $0.active ? $0.productId : nil)
            }
        })
}
// docs:end
