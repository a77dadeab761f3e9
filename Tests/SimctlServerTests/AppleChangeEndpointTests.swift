import Foundation
import SimctlHTTP
import SimctlServer
import SubscriptionSimulator
import Testing

/// The App Store Server API endpoints of issue 25: each one's answer, its validation errors (Apple's codes) and its
/// effect on the store and the notifications delivered.
@Suite struct AppleChangeEndpointTests {
    /// The family story with a consumable and a non-consumable besides the family subscription.
    static let scenario = familyServeScenario.replacingOccurrences(
        of: "\nfamily:",
        with: "\n  - { id: com.example.nightsky.coins, type: consumable, price: 0.99 }"
            + "\n  - { id: com.example.nightsky.lifetime, type: nonConsumable, price: 29.99 }\nfamily:")
    static let coins = "com.example.nightsky.coins"
    static let lifetime = "com.example.nightsky.lifetime"

    /// A server where alice subscribes (bob gets the share), then buys coins and the lifetime product.
    func server(_ transport: RecordingTransport = RecordingTransport()) throws -> SimulatorServer {
        let server = try makeServer(transport: transport, scenario: Self.scenario)
        for (customer, product) in [("alice", familyProduct), ("alice", Self.coins), ("alice", Self.lifetime)] {
            let answer = server.control(
                "/simctl/v1/actions", #"{"purchase": {"customer": "\#(customer)", "product": "\#(product)"}}"#)
            #expect(answer.status == 200, "\(answer.bodyText)")
        }
        #expect(server.control("/simctl/v1/advance", #"{"by": "2h"}"#).status == 200)
        return server
    }

    func customer(_ server: SimulatorServer, _ name: String) -> JSONValue? {
        server.stateJSON().value(at: "customers")?.arrayItems?.first { $0.value(at: "customer") == .string(name) }
    }

    func subscriptionId(_ server: SimulatorServer, _ name: String) -> String {
        customer(server, name)?.value(at: "subscriptions.0.originalTransactionId")?.stringValue ?? ""
    }

    func transaction(_ server: SimulatorServer, _ name: String, _ product: String) -> JSONValue? {
        customer(server, name)?.value(at: "transactions")?.arrayItems?.last {
            $0.value(at: "productId") == .string(product)
        }
    }

    func transactionId(_ server: SimulatorServer, _ name: String, _ product: String) -> String {
        transaction(server, name, product)?.value(at: "transactionId")?.stringValue ?? ""
    }

    func errorCode(_ response: ServerResponse) -> Int64? { response.json.value(at: "errorCode")?.integerValue }

    /// The decoded payload of a JWS.
    func payload(_ jws: String) -> JSONValue {
        let part = jws.split(separator: ".")[1]
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let data = Data(base64Encoded: base64) ?? Data()
        return (try? CanonicalJSON.parse(String(decoding: data, as: UTF8.self))) ?? .null
    }

    @Test func extendARenewalDateMovesExpiryAndSendsRenewalExtended() throws {
        let transport = RecordingTransport()
        let server = try server(transport)
        let id = subscriptionId(server, "alice")
        let before = try #require(
            payload(server.get("/inApps/v1/transactions/\(id)").json.value(at: "signedTransactionInfo")!.stringValue!)
                .value(at: "expiresDate")?.integerValue)
        let sent = transport.requests.count
        let body = #"{"extendByDays": 7, "extendReasonCode": 1, "requestIdentifier": "r-1"}"#
        let answer = server.send("PUT", "/inApps/v1/subscriptions/extend/\(id)", body)
        #expect(answer.status == 200, "\(answer.bodyText)")
        #expect(answer.json.value(at: "success") == .bool(true))
        #expect(answer.json.value(at: "originalTransactionId") == .string(id))
        #expect(answer.json.value(at: "effectiveDate")?.integerValue == before + 7 * 86_400_000)
        #expect(answer.json.value(at: "webOrderLineItemId")?.stringValue != nil)
        // A single extension's answer carries no requestIdentifier (ExtendRenewalDateResponse; issue 29).
        #expect(!answer.bodyText.contains("requestIdentifier"))
        // RENEWAL_EXTENDED to alice and to bob (the share), delivered before the answer.
        let types = transport.requests.dropFirst(sent).map(\.item.notificationType)
        #expect(types == ["RENEWAL_EXTENDED", "RENEWAL_EXTENDED"])

        for (path, body, code) in [
            ("/inApps/v1/subscriptions/extend/abc", body, 4_000_008),
            ("/inApps/v1/subscriptions/extend/999999", body, 4_040_005),
            (
                "/inApps/v1/subscriptions/extend/\(id)",
                #"{"extendByDays": 91, "extendReasonCode": 1, "requestIdentifier": "x"}"#, 4_000_009
            ),
            (
                "/inApps/v1/subscriptions/extend/\(id)",
                #"{"extendByDays": 3, "extendReasonCode": 9, "requestIdentifier": "x"}"#, 4_000_010
            ),
            ("/inApps/v1/subscriptions/extend/\(id)", #"{"extendByDays": 3, "extendReasonCode": 0}"#, 4_000_011),
            ("/inApps/v1/subscriptions/extend/\(subscriptionId(server, "bob"))", body, 4_030_007),
            ("/inApps/v1/subscriptions/extend/\(id)", "[]", 4_000_000),
        ] as [(String, String, Int64)] {
            let refused = server.send("PUT", path, body)
            #expect(errorCode(refused) == code, "\(path) \(body): \(refused.bodyText)")
        }
        // The same request again (a retry) is answered as the first time and sends nothing (rule
        // extension-request-identifier-once).
        let retry = server.send("PUT", "/inApps/v1/subscriptions/extend/\(id)", body)
        #expect(retry.status == 200 && retry.json == answer.json, "\(retry.bodyText)")
        #expect(transport.requests.count == sent + 2)
        // Two in 365 days are allowed; the third is 4030005.
        let second = #"{"extendByDays": 7, "extendReasonCode": 1, "requestIdentifier": "r-2"}"#
        let third = #"{"extendByDays": 7, "extendReasonCode": 1, "requestIdentifier": "r-3"}"#
        #expect(server.send("PUT", "/inApps/v1/subscriptions/extend/\(id)", second).status == 200)
        #expect(errorCode(server.send("PUT", "/inApps/v1/subscriptions/extend/\(id)", third)) == 4_030_005)
    }

    @Test func massExtensionSendsSummaryAndItsStatusIsAnswerable() throws {
        let transport = RecordingTransport()
        let server = try server(transport)
        let sent = transport.requests.count
        let body =
            #"{"requestIdentifier": "mass-1", "extendByDays": 5, "extendReasonCode": 3, "productId": "\#(familyProduct)"}"#
        let answer = server.post("/inApps/v1/subscriptions/extend/mass", body)
        #expect(answer.status == 200, "\(answer.bodyText)")
        #expect(answer.json == .object(["requestIdentifier": .string("mass-1")]))
        let received = transport.requests.dropFirst(sent).map(\.item)
        #expect(received.last?.notificationType == "RENEWAL_EXTENSION")
        #expect(received.last?.subtype == "SUMMARY")
        #expect(received.filter { $0.notificationType == "RENEWAL_EXTENDED" }.count == 2)
        // Sent again: answered, not extended twice.
        #expect(server.post("/inApps/v1/subscriptions/extend/mass", body).status == 200)
        #expect(transport.requests.count == sent + received.count)

        let status = server.get("/inApps/v1/subscriptions/extend/mass/\(familyProduct)/mass-1")
        #expect(status.status == 200)
        #expect(status.json.value(at: "complete") == .bool(true))
        #expect(status.json.value(at: "succeededCount") == .integer(1))
        #expect(status.json.value(at: "failedCount") == .integer(0))
        #expect(status.json.value(at: "requestIdentifier") == .string("mass-1"))
        #expect(errorCode(server.get("/inApps/v1/subscriptions/extend/mass/\(familyProduct)/nope")) == 4_040_009)

        for (body, code) in [
            (#"{"extendByDays": 5, "extendReasonCode": 3, "productId": "\#(familyProduct)"}"#, 4_000_011),
            (
                #"{"requestIdentifier": "m", "extendByDays": 0, "extendReasonCode": 3, "productId": "\#(familyProduct)"}"#,
                4_000_009
            ),
            (
                #"{"requestIdentifier": "m", "extendByDays": 5, "extendReasonCode": 3, "productId": "\#(Self.coins)"}"#,
                4_000_023
            ),
            (
                #"{"requestIdentifier": "m", "extendByDays": 5, "extendReasonCode": 3, "productId": "\#(familyProduct)", "storefrontCountryCodes": []}"#,
                4_000_027
            ),
            (
                #"{"requestIdentifier": "m", "extendByDays": 5, "extendReasonCode": 3, "productId": "\#(familyProduct)", "storefrontCountryCodes": ["us"]}"#,
                4_000_028
            ),
        ] as [(String, Int64)] {
            let refused = server.post("/inApps/v1/subscriptions/extend/mass", body)
            #expect(refused.status == 400)
            #expect(errorCode(refused) == code, "\(body): \(refused.bodyText)")
        }
    }

    @Test func consumptionInformationIsCheckedRecordedAndShownInTheState() throws {
        let server = try server()
        let coins = transactionId(server, "alice", Self.coins)
        let v2 =
            #"{"customerConsented": true, "sampleContentProvided": false, "deliveryStatus": "DELIVERED", "refundPreference": "DECLINE"}"#
        // No refund request yet: refused, with the rule.
        let early = server.send("PUT", "/inApps/v2/transactions/consumption/\(coins)", v2)
        #expect(errorCode(early) == 4_000_000)
        #expect(early.json.value(at: "errorMessage")?.stringValue?.contains("requestRefund") == true)
        #expect(
            server.control(
                "/simctl/v1/actions",
                #"{"requestRefund": {"customer": "alice", "product": "\#(Self.coins)", "reason": "UNINTENDED_PURCHASE"}}"#
            ).status == 200)
        for (body, code) in [
            (
                #"{"customerConsented": false, "sampleContentProvided": false, "deliveryStatus": "DELIVERED"}"#,
                4_000_035
            ),
            (#"{"customerConsented": true, "deliveryStatus": "DELIVERED"}"#, 4_000_041),
            (#"{"customerConsented": true, "sampleContentProvided": false, "deliveryStatus": "LOST"}"#, 4_000_036),
            (
                #"{"customerConsented": true, "sampleContentProvided": false, "deliveryStatus": "DELIVERED", "consumptionPercentage": 100001}"#,
                4_000_000
            ),
            ("not json", 4_000_000),
        ] as [(String, Int64)] {
            #expect(
                errorCode(server.send("PUT", "/inApps/v2/transactions/consumption/\(coins)", body)) == code, "\(body)")
        }
        #expect(
            errorCode(
                server.send(
                    "PUT", "/inApps/v1/transactions/consumption/\(coins)",
                    #"{"customerConsented": true, "platform": 7}"#)) == 4_000_039)
        #expect(errorCode(server.send("PUT", "/inApps/v2/transactions/consumption/x1", v2)) == 4_000_006)
        #expect(errorCode(server.send("PUT", "/inApps/v2/transactions/consumption/999999", v2)) == 4_040_010)
        let lifetime = transactionId(server, "alice", Self.lifetime)
        #expect(errorCode(server.send("PUT", "/inApps/v2/transactions/consumption/\(lifetime)", v2)) == 4_000_047)

        let accepted = server.send("PUT", "/inApps/v2/transactions/consumption/\(coins)", v2)
        #expect(accepted.status == 202)
        #expect(accepted.body.isEmpty)
        let v1 =
            #"{"customerConsented": true, "consumptionStatus": 1, "platform": 1, "deliveryStatus": 0, "refundPreference": 2}"#
        #expect(server.send("PUT", "/inApps/v1/transactions/consumption/\(coins)", v1).status == 202)
        let shown = try #require(transaction(server, "alice", Self.coins)?.value(at: "consumptionInformation"))
        #expect(shown.arrayItems?.count == 2)
        #expect(shown.value(at: "0.version") == .integer(2))
        #expect(shown.value(at: "0.body.refundPreference") == .string("DECLINE"))
        #expect(shown.value(at: "1.version") == .integer(1))
    }

    /// Issue 46: a consumption information cannot grow the store: members outside Apple's request type are not kept
    /// (rule consumption-information-kept-fields), and only the latest 16 of a transaction are (rule
    /// consumption-information-kept-latest).
    @Test func consumptionInformationKeptIsBounded() throws {
        let server = try server()
        let coins = transactionId(server, "alice", Self.coins)
        #expect(
            server.control(
                "/simctl/v1/actions",
                #"{"requestRefund": {"customer": "alice", "product": "\#(Self.coins)", "reason": "OTHER"}}"#
            ).status == 200)
        let padding = String(repeating: "x", count: 200_000)
        for percentage in 0..<20 {
            let body =
                #"{"customerConsented": true, "sampleContentProvided": false, "deliveryStatus": "DELIVERED", "#
                + #""consumptionPercentage": \#(percentage), "extra": "\#(padding)"}"#
            #expect(server.send("PUT", "/inApps/v2/transactions/consumption/\(coins)", body).status == 202)
        }
        let shown = try #require(transaction(server, "alice", Self.coins)?.value(at: "consumptionInformation"))
        let kept = SimulatedStore.consumptionInformationKeptPerTransaction
        #expect(shown.arrayItems?.count == kept)
        #expect(shown.value(at: "0.body.consumptionPercentage") == .integer(Int64(20 - kept)), "the oldest went")
        #expect(shown.value(at: "\(kept - 1).body.consumptionPercentage") == .integer(19))
        #expect(shown.value(at: "0.body.extra") == nil, "an unknown member is not kept")
        #expect(shown.value(at: "0.body.deliveryStatus") == .string("DELIVERED"))
    }

    /// Issue 45: a refund request pending on a renewal is answered with the renewal's transactionId or with the
    /// purchase's originalTransactionId (rule consumption-by-original-transaction-id); another transaction of the
    /// purchase with nothing pending is still refused with the rule.
    @Test func consumptionInformationTakesTheOriginalTransactionIdOfARenewal() throws {
        let server = try server()
        #expect(server.control("/simctl/v1/advance", #"{"by": "P1M"}"#).status == 200)
        let original = subscriptionId(server, "alice")
        let renewal = transactionId(server, "alice", familyProduct)
        #expect(!original.isEmpty && renewal != original, "the subscription renewed")
        let v2 = #"{"customerConsented": true, "sampleContentProvided": false, "deliveryStatus": "DELIVERED"}"#
        let early = server.send("PUT", "/inApps/v2/transactions/consumption/\(original)", v2)
        #expect(errorCode(early) == 4_000_000, "nothing pending yet: \(early.bodyText)")
        #expect(
            server.control(
                "/simctl/v1/actions",
                #"{"requestRefund": {"customer": "alice", "product": "\#(familyProduct)", "reason": "OTHER"}}"#
            ).status == 200)
        let byOriginal = server.send("PUT", "/inApps/v2/transactions/consumption/\(original)", v2)
        #expect(byOriginal.status == 202, "\(byOriginal.bodyText)")
        let v1 = #"{"customerConsented": true, "consumptionStatus": 1, "platform": 1, "deliveryStatus": 0}"#
        #expect(server.send("PUT", "/inApps/v1/transactions/consumption/\(original)", v1).status == 202)
        #expect(server.send("PUT", "/inApps/v2/transactions/consumption/\(renewal)", v2).status == 202)
        let shown = try #require(transaction(server, "alice", familyProduct)?.value(at: "consumptionInformation"))
        #expect(shown.arrayItems?.count == 3, "kept on the renewal, whose request it answers")
        let member = transactionId(server, "bob", familyProduct)
        #expect(errorCode(server.send("PUT", "/inApps/v2/transactions/consumption/\(member)", v2)) == 4_000_185)
    }

    @Test func setAppAccountTokenAppearsOnTransactionsAndRenewalInfo() throws {
        let server = try server()
        let id = subscriptionId(server, "alice")
        let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        let answer = server.send(
            "PUT", "/inApps/v1/transactions/\(id)/appAccountToken", #"{"appAccountToken": "\#(token)"}"#)
        #expect(answer.status == 200, "\(answer.bodyText)")
        #expect(answer.body.isEmpty)
        let status = server.get("/inApps/v1/subscriptions/\(id)").json
        let item = try #require(status.value(at: "data.0.lastTransactions.0"))
        #expect(
            payload(item.value(at: "signedTransactionInfo")!.stringValue!).value(at: "appAccountToken")
                == .string(token))
        #expect(
            payload(item.value(at: "signedRenewalInfo")!.stringValue!).value(at: "appAccountToken") == .string(token))
        // A later renewal carries it too; bob's share never does.
        #expect(server.control("/simctl/v1/advance", #"{"by": "P1M"}"#).status == 200)
        let history = server.get("/inApps/v2/history/\(id)").json.value(at: "signedTransactions")?.arrayItems ?? []
        let subscriptionPayloads = history.map { payload($0.stringValue!) }.filter {
            $0.value(at: "productId") == .string(familyProduct)
        }
        #expect(subscriptionPayloads.count == 2)
        #expect(subscriptionPayloads.allSatisfy { $0.value(at: "appAccountToken") == .string(token) })
        let bob = subscriptionId(server, "bob")
        let bobInfo = server.get("/inApps/v1/transactions/\(bob)").json.value(at: "signedTransactionInfo")!
        #expect(payload(bobInfo.stringValue!).value(at: "appAccountToken") == nil)

        for (path, body, code) in [
            ("/inApps/v1/transactions/\(id)/appAccountToken", #"{"appAccountToken": "not-a-uuid"}"#, 4_000_183),
            ("/inApps/v1/transactions/\(id)/appAccountToken", #"{}"#, 4_000_183),
            ("/inApps/v1/transactions/\(bob)/appAccountToken", #"{"appAccountToken": "\#(token)"}"#, 4_000_185),
            ("/inApps/v1/transactions/x/appAccountToken", #"{"appAccountToken": "\#(token)"}"#, 4_000_006),
            ("/inApps/v1/transactions/999999/appAccountToken", #"{"appAccountToken": "\#(token)"}"#, 4_040_010),
        ] as [(String, String, Int64)] {
            #expect(errorCode(server.send("PUT", path, body)) == code, "\(path) \(body)")
        }
        let renewal = transactionId(server, "alice", familyProduct)
        #expect(renewal != id)
        #expect(
            errorCode(
                server.send(
                    "PUT", "/inApps/v1/transactions/\(renewal)/appAccountToken", #"{"appAccountToken": "\#(token)"}"#))
                == 4_000_187)
    }

    @Test func finishTransactionIsRecordedAndLeavesHistoryV1ForConsumables() throws {
        let server = try server()
        let coins = transactionId(server, "alice", Self.coins)
        let id = subscriptionId(server, "alice")
        func v1Products() -> [JSONValue?] {
            (server.get("/inApps/v1/history/\(id)").json.value(at: "signedTransactions")?.arrayItems ?? []).map {
                payload($0.stringValue!).value(at: "productId")
            }
        }
        #expect(v1Products().contains(.string(Self.coins)))
        // Apple's Python client writes `revoked` as `False`/`True`.
        let notRevoked = server.get("/inApps/v1/history/\(id)", query: [(name: "revoked", value: "False")])
        #expect(notRevoked.json.value(at: "signedTransactions")?.arrayItems?.count == 3)
        #expect(errorCode(server.get("/inApps/v1/history/\(id)", query: [(name: "revoked", value: "no")])) == 4_000_030)
        let answer = server.post("/inApps/v1/transactions/\(coins)/finish", "")
        #expect(answer.status == 200)
        #expect(answer.body.isEmpty)
        #expect(transaction(server, "alice", Self.coins)?.value(at: "finished") == .bool(true))
        // v1 leaves the finished consumable out; v2 keeps every transaction.
        #expect(!v1Products().contains(.string(Self.coins)))
        #expect(v1Products().contains(.string(Self.lifetime)))
        let v2 = server.get("/inApps/v2/history/\(id)").json.value(at: "signedTransactions")?.arrayItems ?? []
        #expect(v2.contains { payload($0.stringValue!).value(at: "productId") == .string(Self.coins) })
        #expect(errorCode(server.post("/inApps/v1/transactions/x/finish", "")) == 4_000_006)
        #expect(errorCode(server.post("/inApps/v1/transactions/999999/finish", "")) == 4_040_010)
        #expect(errorCode(server.get("/inApps/v1/transactions/\(coins)/finish")) == 4_000_000)
    }

    @Test func orderIdsAreInTheStateAndLookUpFindsThem() throws {
        let server = try server()
        let orderId = try #require(transaction(server, "alice", Self.coins)?.value(at: "orderId")?.stringValue)
        #expect(orderId.count == 10 && orderId.hasPrefix("M"))
        let found = server.get("/inApps/v1/lookup/\(orderId)")
        #expect(found.status == 200)
        #expect(found.json.value(at: "status") == .integer(0))
        let signed = try #require(found.json.value(at: "signedTransactions")?.arrayItems)
        #expect(signed.count == 1)
        #expect(payload(signed[0].stringValue!).value(at: "productId") == .string(Self.coins))
        #expect(server.get("/inApps/v1/lookup/MNOTANORDER").json == .object(["status": .integer(1)]))
        // Family members' shares have no order id; the same seed gives the same ids.
        #expect(transaction(server, "bob", familyProduct)?.value(at: "orderId") == nil)
        let again = try self.server()
        #expect(transaction(again, "alice", Self.coins)?.value(at: "orderId")?.stringValue == orderId)
    }

    @Test func appTransactionInfoIsTheCustomersAppTransaction() throws {
        let server = try server()
        let id = subscriptionId(server, "bob")
        let answer = server.get("/inApps/v1/transactions/appTransactions/\(id)")
        #expect(answer.status == 200)
        let decoded = payload(try #require(answer.json.value(at: "signedAppTransactionInfo")?.stringValue))
        #expect(decoded.value(at: "bundleId") == .string("com.example.nightsky"))
        #expect(decoded.value(at: "receiptType") == .string("LocalTesting"))
        #expect(decoded.value(at: "appTransactionId") != nil)
        #expect(
            decoded.value(at: "appTransactionId")
                == payload(
                    server.get("/inApps/v1/transactions/\(id)").json.value(at: "signedTransactionInfo")!.stringValue!
                ).value(at: "appTransactionId"))
        #expect(errorCode(server.get("/inApps/v1/transactions/appTransactions/x")) == 4_000_006)
        #expect(errorCode(server.get("/inApps/v1/transactions/appTransactions/999999")) == 4_040_010)
    }

    @Test func errorsOutsideTheControlAPIAreApplesAndSeparatorsAreRoutedBeforeDecoding() throws {
        let server = try server()
        let unknown = server.get("/inApps/v1/nothing/here")
        #expect(unknown.status == 404)
        #expect(errorCode(unknown) == 4_000_000)
        let wrongMethod = server.send("DELETE", "/inApps/v1/notifications/history", "")
        #expect(wrongMethod.status == 405)
        #expect(errorCode(wrongMethod) == 4_000_000)
        #expect(wrongMethod.headers.contains { $0.name == "Allow" && $0.value == "POST" })
        #expect(errorCode(server.handle(ServerRequest(method: "GET", path: "/favicon.ico"))) == 4_000_000)
        // The control API keeps its own shape.
        #expect(server.control("/simctl/v1/nothing").json.value(at: "error") != nil)
        // An escaped slash stays in its segment: an invalid transaction id, not another route.
        let id = subscriptionId(server, "alice")
        let escaped = server.handle(
            ServerRequest(
                method: "GET", path: "/inApps/v1/transactions/appTransactions/\(id)",
                headers: [(name: "Authorization", value: "Bearer \(TestAPIKey().token())")],
                segments: ["", "inApps", "v1", "transactions", "appTransactions/\(id)"]))
        #expect(errorCode(escaped) == 4_000_006)
    }

    @Test func theHTTPLayerSplitsSegmentsBeforeDecoding() throws {
        let request = try HTTPRequest(method: "GET", target: "/inApps/v1/transactions/appTransactions%2F7?x=%2F")
        #expect(request.path == "/inApps/v1/transactions/appTransactions/7")
        #expect(request.pathSegments == ["", "inApps", "v1", "transactions", "appTransactions/7"])
        #expect(try HTTPRequest(method: "OPTIONS", target: "*").pathSegments == ["*"])
        #expect(try HTTPRequest(method: "GET", target: "/").pathSegments == ["", ""])
        #expect(try HTTPRequest(method: "GET", target: "http://host?q=1").pathSegments == ["", ""])
        let server = try server()
        let headers = HTTPHeaders([HTTPField(name: "Authorization", value: "Bearer \(TestAPIKey().token())")])
        let answer = server.handle(
            http: try HTTPRequest(
                method: "GET", target: "/inApps/v1/transactions/appTransactions%2F\(subscriptionId(server, "alice"))",
                headers: headers))
        #expect(answer.status == 400)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("4000006"))
    }

    @Test func stateRefusesUnknownCustomersAndParameters() throws {
        let server = try server()
        let typo = server.get("/simctl/v1/state", query: [(name: "customer", value: "alcie")], token: nil)
        #expect(typo.status == 404)
        #expect(typo.json.value(at: "error")?.stringValue?.contains("alice, bob") == true)
        #expect(server.get("/simctl/v1/state", query: [(name: "customer", value: "")], token: nil).status == 400)
        #expect(server.get("/simctl/v1/state", query: [(name: "custmer", value: "alice")], token: nil).status == 400)
        #expect(server.get("/simctl/v1/deliveries", query: [(name: "x", value: "1")], token: nil).status == 400)
        let alice = server.get("/simctl/v1/state", query: [(name: "customer", value: "alice")], token: nil)
        #expect(alice.status == 200)
        #expect(alice.json.value(at: "customers")?.arrayItems?.count == 1)
    }
}

extension SimulatorServer {
    /// A request with any method, a body and a valid bearer token.
    func send(_ method: String, _ path: String, _ body: String) -> ServerResponse {
        handle(
            ServerRequest(
                method: method, path: path, headers: [(name: "Authorization", value: "Bearer \(TestAPIKey().token())")],
                body: Array(body.utf8)))
    }
}
