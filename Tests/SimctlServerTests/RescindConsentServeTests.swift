import Foundation
import SimctlServer
import SubscriptionSimulator
import Testing

/// Issue 50: `POST /simctl/v1/actions` with `rescindConsent` (the control API reads actions with the scenario
/// decoder, so the action table's entry is the whole of its form) delivers `RESCIND_CONSENT` to the customer, and Get
/// App Transaction Info answers the same `AppTransaction` the notification signed.
@Suite struct RescindConsentServeTests {
    func payload(_ jws: String) -> JSONValue { (try? JWS.decodePayload(jws)) ?? .null }

    @Test func theControlAPIsActionDeliversRescindConsentWithAppData() throws {
        let transport = RecordingTransport()
        let server = try makeServer(transport: transport)
        let before = transport.requests.count
        let response = server.control("/simctl/v1/actions", #"{"rescindConsent": {"customer": "bob"}}"#)
        #expect(response.status == 200, "\(response.bodyText)")
        let delivered = transport.requests.dropFirst(before)
        #expect(delivered.count == 1, "bob only: nobody else in the family")
        let body = try #require(delivered.first?.body)
        let signed = try #require(CanonicalJSON.parse(body).value(at: "signedPayload")?.stringValue)
        let notification = payload(signed)
        #expect(notification.value(at: "notificationType") == .string("RESCIND_CONSENT"))
        #expect(notification.value(at: "data") == nil)
        let appTransaction = payload(
            try #require(notification.value(at: "appData.signedAppTransactionInfo")?.stringValue))
        #expect(appTransaction.value(at: "bundleId") == .string("com.example.nightsky"))
        let id = try #require(appTransaction.value(at: "appTransactionId")?.stringValue)
        let answer = server.get("/inApps/v1/transactions/appTransactions/\(id)")
        #expect(answer.status == 200)
        let fromAPI = payload(try #require(answer.json.value(at: "signedAppTransactionInfo")?.stringValue))
        #expect(fromAPI == appTransaction, "the same customer, the same instant: the same AppTransaction")
        let unknown = server.control("/simctl/v1/actions", #"{"rescindConsent": {"customr": "bob"}}"#)
        #expect(unknown.status == 400)
    }
}
