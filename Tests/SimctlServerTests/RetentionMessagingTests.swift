import Foundation
import SimctlServer
import SubscriptionSimulator
import Testing

/// Retention Messaging's rules (`ServerAPI/RetentionMessaging.swift`, `RetentionRealtime.swift`) and their routes:
/// Apple's limits and error codes, the review states, the realtime outcome and the performance test's pass rule.
/// Apple's own client and decoder run against `simctl serve` in Tests/Conformance/retention_check.sh.
@Suite struct RetentionMessagingTests {
    /// A PNG's signature, `IHDR` (colour type `colourType`) and, optionally, a `tRNS` chunk; CRCs are not checked.
    static func png(_ width: Int, _ height: Int, colourType: UInt8 = 2, transparencyChunk: Bool = false) -> [UInt8] {
        func word(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            word(data.count) + Array(type.utf8) + data + [0, 0, 0, 0]
        }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", word(width) + word(height) + [8, colourType, 0, 0, 0])
            + (transparencyChunk ? chunk("tRNS", [0, 0, 0, 0, 0, 0]) : []) + chunk("IDAT", [0]) + chunk("IEND", [])
    }

    static let ids = (0..<12).map { String(format: "00000000-0000-4000-8000-%012d", $0) }

    static func code(_ body: () throws(ServerAPIError) -> Void) -> Int64? {
        do throws(ServerAPIError) {
            try body()
            return nil
        } catch { return error.errorCode }
    }

    @Test func imagesFollowApplesSizesAndFormat() {
        var config = RetentionMessaging(environment: .sandbox)
        let cases: [([UInt8], String?, Int64?)] = [
            (Self.png(3840, 160), nil, nil), (Self.png(3840, 2160), "FULL_SIZE", nil),
            (Self.png(1024, 1024), "BULLET_POINT", nil), (Self.png(3840, 159), nil, 4_000_161),
            (Self.png(3840, 2161), nil, 4_000_161), (Self.png(3839, 200), nil, 4_000_161),
            (Self.png(1024, 1023), "BULLET_POINT", 4_000_161), (Self.png(3840, 200, colourType: 6), nil, 4_000_161),
            (Self.png(3840, 200, colourType: 4), nil, 4_000_161),
            (Self.png(3840, 200, colourType: 3, transparencyChunk: true), nil, 4_000_161),
            (Array("GIF89a".utf8), nil, 4_000_161), (Self.png(3840, 200), "HUGE", 4_000_216),
        ]
        for (index, (bytes, size, expected)) in cases.enumerated() {
            let found = Self.code { () throws(ServerAPIError) in
                try config.uploadImage(identifier: Self.ids[index], imageSize: size, png: bytes)
            }
            #expect(found == expected, "case \(index)")
        }
        #expect(
            Self.code { () throws(ServerAPIError) in
                try config.uploadImage(identifier: Self.ids[0], imageSize: nil, png: Self.png(3840, 160))
            } == 4_090_000)
        #expect(config.images.map(\.state) == [.approved, .approved, .approved])
    }

    @Test func messagesFollowApplesLengthLimits() {
        var config = RetentionMessaging(environment: .sandbox)
        try? config.uploadImage(identifier: Self.ids[10], imageSize: nil, png: Self.png(3840, 160))
        try? config.uploadImage(identifier: Self.ids[11], imageSize: "BULLET_POINT", png: Self.png(1024, 1024))
        func upload(_ id: Int, _ json: String) -> Int64? {
            Self.code { () throws(ServerAPIError) in
                try config.uploadMessage(identifier: Self.ids[id], body: Array(json.utf8))
            }
        }
        let h66 = String(repeating: "é", count: 66)
        let bullet = #"{"text": "t", "imageIdentifier": "\#(Self.ids[11])", "altText": "a"}"#
        #expect(upload(0, #"{"header": "\#(h66)", "body": "\#(String(repeating: "b", count: 144))"}"#) == nil)
        #expect(upload(1, #"{"header": "\#(h66)x", "body": "b"}"#) == 4_000_162)
        #expect(upload(1, #"{"header": "h", "body": "\#(String(repeating: "b", count: 145))"}"#) == 4_000_163)
        let alt151 = String(repeating: "a", count: 151)
        #expect(
            upload(
                1,
                #"{"header": "h", "body": "b", "image": {"imageIdentifier": "\#(Self.ids[10])", "altText": "\#(alt151)"}}"#
            )
                == 4_000_175)
        #expect(upload(1, #"{"header": "h", "body": "b", "headerPosition": "ABOVE_IMAGE"}"#) == 4_000_224)
        let five = Array(repeating: bullet, count: 5).joined(separator: ",")
        #expect(upload(1, #"{"header": "h", "body": "b", "bulletPoints": [\#(five)]}"#) == nil)
        #expect(upload(2, #"{"header": "h", "body": "b", "bulletPoints": [\#(five), \#(bullet)]}"#) == 4_000_218)
        let long =
            #"{"text": "\#(String(repeating: "t", count: 67))", "imageIdentifier": "\#(Self.ids[11])", "altText": "a"}"#
        #expect(upload(2, #"{"header": "h", "body": "b", "bulletPoints": [\#(long)]}"#) == 4_000_219)
        // A bullet-point image as the message's image, an unknown image.
        #expect(
            upload(
                2, #"{"header": "h", "body": "b", "image": {"imageIdentifier": "\#(Self.ids[11])", "altText": "a"}}"#)
                == 4_000_216)
        #expect(
            upload(2, #"{"header": "h", "body": "b", "image": {"imageIdentifier": "\#(Self.ids[9])", "altText": "a"}}"#)
                == 4_040_014)
        #expect(upload(0, #"{"header": "h", "body": "b"}"#) == 4_090_001)
        #expect(upload(2, #"{"header": "h"}"#) == 4_000_000)
        // The image a message uses cannot be deleted.
        #expect(
            upload(
                3, #"{"header": "h", "body": "b", "image": {"imageIdentifier": "\#(Self.ids[10])", "altText": "a"}}"#)
                == nil)
        let inUse = Self.code { () throws(ServerAPIError) in try config.deleteImage(identifier: Self.ids[10]) }
        #expect(inUse == 4_030_019)
    }

    @Test func productionKeepsUploadsPendingUntilReviewed() throws {
        let catalog = try decodeScenario(familyServeScenario).catalog
        var config = RetentionMessaging(environment: .production)
        try config.uploadMessage(identifier: Self.ids[0], body: Array(#"{"header": "h", "body": "b"}"#.utf8))
        let body = Array(#"{"messageIdentifier": "\#(Self.ids[0])"}"#.utf8)
        func configure(_ product: String = familyProduct, _ locale: String = "en-US") -> Int64? {
            Self.code { () throws(ServerAPIError) in
                try config.configureDefault(productId: product, locale: locale, body: body, catalog: catalog)
            }
        }
        #expect(config.messages.map(\.state) == [.pending])
        #expect(configure() == 4_030_017)
        let reviewed = config.review(Self.ids[0].uppercased(), .approved)
        #expect(reviewed)
        #expect(configure() == nil)
        #expect(configure("com.example.unknown") == 4_000_023)
        #expect(configure(familyProduct, "english") == 4_000_164)
        #expect(config.defaultMessage(productId: familyProduct, locale: "en-US") == Self.ids[0])
        // Production needs a passed performance test before a realtime URL.
        let url = Array(#"{"realtimeURL": "http://127.0.0.1:9/retention"}"#.utf8)
        let beforeTest = Self.code { () throws(ServerAPIError) in try config.configureRealtimeURL(body: url) }
        #expect(beforeTest == 4_030_026)
        config.record(
            PerformanceTestResult(
                requestId: Self.ids[1], target: "http://127.0.0.1:9/retention",
                config: PerformanceTestConfig(totalRequests: 1),
                samples: [PerformanceTestResult.Sample(milliseconds: 5, failure: nil)]))
        let afterTest = Self.code { () throws(ServerAPIError) in try config.configureRealtimeURL(body: url) }
        #expect(afterTest == nil)
    }

    @Test func realtimeURLsAndLocales() {
        #expect(RetentionMessaging.isRealtimeURL("https://example.com/retention"))
        #expect(RetentionMessaging.isRealtimeURL("http://127.0.0.1:8080"))
        #expect(!RetentionMessaging.isRealtimeURL("ftp://example.com"))
        #expect(!RetentionMessaging.isRealtimeURL("http://"))
        #expect(!RetentionMessaging.isRealtimeURL("http://example.com/" + String(repeating: "a", count: 238)))
        #expect(RetentionMessaging.isRealtimeURL("http://example.com/" + String(repeating: "a", count: 237)))
        for good in ["en", "en-US", "en_US", "zh-Hans", "es-419", "zh-Hans-CN"] {
            #expect(RetentionMessaging.isLocale(good), "\(good)")
        }
        for bad in ["", "EN", "english", "en-", "en-USA", "e", "en US"] { #expect(!RetentionMessaging.isLocale(bad)) }
    }

    @Test func performanceTestPassRuleAndPercentiles() {
        let config = PerformanceTestConfig(totalRequests: 10, successRateThreshold: 90)
        let fast = (1...10).map { PerformanceTestResult.Sample(milliseconds: Int64($0 * 10), failure: nil) }
        let result = PerformanceTestResult(requestId: Self.ids[0], target: "t", config: config, samples: fast)
        #expect(result.passed && result.successRate == 100)
        #expect([50, 90, 95, 99].map(result.percentile) == [50, 90, 100, 100])
        var oneLate = fast
        oneLate[9] = PerformanceTestResult.Sample(milliseconds: 700, failure: "TIMED_OUT")
        #expect(PerformanceTestResult(requestId: "", target: "t", config: config, samples: oneLate).passed)
        var twoLate = oneLate
        twoLate[8] = PerformanceTestResult.Sample(milliseconds: 700, failure: "TIMED_OUT")
        let failed = PerformanceTestResult(requestId: "", target: "t", config: config, samples: twoLate)
        #expect(!failed.passed && failed.successRate == 80)
        #expect(failed.json.value(at: "failures.TIMED_OUT")?.integerValue == 2)
        #expect(
            !PerformanceTestResult(requestId: "", target: "t", config: config, samples: Array(fast.prefix(9))).passed)
        #expect(
            RetentionMessaging.performanceFailure(
                RealtimeAnswer(status: 200, body: Array("{}".utf8), failure: nil, elapsedMicroseconds: 1000),
                threshold: 700) == .invalidResponse)
        #expect(
            RetentionMessaging.performanceFailure(
                RealtimeAnswer(status: 503, body: [], failure: nil, elapsedMicroseconds: 1000), threshold: 700)
                == .unsuccessfulHTTPResponseCode)
    }

    // MARK: the routes, with a realtime endpoint in process

    /// A realtime endpoint that answers `answer`, keeping the request bodies.
    final class Endpoint: RealtimeTransport, @unchecked Sendable {
        let lock = NSLock()
        var bodies: [[UInt8]] = []
        var answer: RealtimeAnswer

        init(_ answer: RealtimeAnswer) { self.answer = answer }

        func post(_ body: [UInt8], to url: String, timeoutMilliseconds: Int64) -> RealtimeAnswer {
            lock.lock()
            defer { lock.unlock() }
            bodies.append(body)
            return answer
        }
    }

    static func answer(_ json: String, ms: Int64 = 20, status: Int = 200) -> RealtimeAnswer {
        RealtimeAnswer(status: status, body: Array(json.utf8), failure: nil, elapsedMicroseconds: ms * 1000)
    }

    func request(_ server: SimulatorServer, _ method: String, _ path: String, _ body: String = "") -> ServerResponse {
        server.handle(
            ServerRequest(
                method: method, path: path,
                headers: [(name: "Authorization", value: "Bearer \(TestAPIKey().token())")], body: Array(body.utf8)))
    }

    func server(_ endpoint: Endpoint) throws -> SimulatorServer {
        let scenario = familyServeScenario.replacingOccurrences(
            of: "timeline: []",
            with: "timeline:\n  - { at: 0, purchase: { customer: alice, product: \(familyProduct) } }")
        var configuration = ServerConfiguration(scenario: try decodeScenario(scenario))
        configuration.realtime = endpoint
        configuration.performanceTest = PerformanceTestConfig(maxConcurrentRequests: 2, totalRequests: 6)
        return try SimulatorServer(configuration: configuration)
    }

    func view(_ server: SimulatorServer) -> JSONValue? {
        let answer = server.control("/simctl/v1/actions", #"{"viewCancellation": {"customer": "alice"}}"#)
        guard case .array(let views)? = answer.json.value(at: "cancellationViews") else { return nil }
        return views.first?.value(at: "outcome")
    }

    @Test func realtimeOutcomes() throws {
        let endpoint = Endpoint(Self.answer("{}"))
        let server = try server(endpoint)
        let (message, fallback) = (Self.ids[0], Self.ids[1])
        for id in [message, fallback] {
            #expect(
                request(server, "PUT", "/inApps/v1/messaging/message/\(id)", #"{"header": "h", "body": "b"}"#).status
                    == 200)
        }
        // No realtime URL and no default: no message; with a default: the default.
        #expect(view(server)?.value(at: "kind")?.stringValue == "noMessage")
        #expect(
            request(
                server, "PUT", "/inApps/v1/messaging/default/\(familyProduct)/en-US",
                #"{"messageIdentifier": "\#(fallback)"}"#
            ).status == 200)
        #expect(view(server)?.value(at: "reason")?.stringValue == "no realtime URL is configured")
        #expect(
            request(server, "PUT", "/inApps/v1/messaging/realtime/url", #"{"realtimeURL": "http://127.0.0.1:9/rm"}"#)
                .status == 200)
        let cases: [(RealtimeAnswer, String)] = [
            (Self.answer(#"{"message": {"messageIdentifier": "\#(message)"}}"#), "message"),
            (Self.answer(#"{"message": {"messageIdentifier": "\#(message)"}}"#, ms: 701), "defaultMessage"),
            (Self.answer(#"{"message": {"messageIdentifier": "\#(message)"}}"#, status: 500), "defaultMessage"),
            (Self.answer(#"{"message": {"messageIdentifier": "\#(Self.ids[5])"}}"#), "defaultMessage"),
            (
                Self.answer(
                    #"{"message": {"messageIdentifier": "\#(message)"}, "alternateProduct": {"productId": "x"}}"#),
                "defaultMessage"
            ),
            (Self.answer(#"{"advancedCommerceInfo": {}}"#), "defaultMessage"),
            (
                RealtimeAnswer(status: nil, body: [], failure: .timedOut, elapsedMicroseconds: 700_000),
                "defaultMessage"
            ),
        ]
        for (answer, kind) in cases {
            endpoint.answer = answer
            let outcome = view(server)
            #expect(outcome?.value(at: "kind")?.stringValue == kind, "\(String(decoding: answer.body, as: UTF8.self))")
        }
        // The request is Apple's DecodedRealtimeRequestBody, signed.
        let body = try CanonicalJSON.parse(String(decoding: try #require(endpoint.bodies.last), as: UTF8.self))
        let payload = try JWS.decodePayload(try #require(body.value(at: "signedPayload")?.stringValue))
        #expect(payload.value(at: "productId")?.stringValue == familyProduct)
        #expect(payload.value(at: "appAppleId")?.integerValue == 1_234_567_890)
        #expect(payload.value(at: "userLocale")?.stringValue == "en-US")
        #expect(payload.value(at: "environment")?.stringValue == "LocalTesting")
        #expect(payload.value(at: "signedDate")?.integerValue == 1_772_355_600_000)
        let retention = server.get("/simctl/v1/retention", token: nil).json
        guard case .array(let views)? = retention.value(at: "cancellationViews") else {
            Issue.record("no cancellationViews")
            return
        }
        #expect(views.count == cases.count + 2)
    }

    @Test func aCustomerWithoutARenewingSubscriptionHasNoCancelButton() throws {
        let server = try server(Endpoint(Self.answer("{}")))
        #expect(
            server.control("/simctl/v1/actions", #"{"cancel": {"customer": "alice", "product": "\#(familyProduct)"}}"#)
                .status == 200)
        let refused = server.control("/simctl/v1/actions", #"{"viewCancellation": {"customer": "alice"}}"#)
        #expect(refused.status == 409 && refused.bodyText.contains("retention-view-needs-renewing-subscription"))
        let bad = server.control("/simctl/v1/actions", #"{"viewCancellation": {"customer": "alice", "locale": "EN"}}"#)
        #expect(bad.status == 400 && bad.bodyText.contains("expected a locale"))
    }

    @Test func performanceTestRunsAgainstTheRealtimeURL() throws {
        let endpoint = Endpoint(Self.answer(#"{"message": {"messageIdentifier": "\#(Self.ids[0])"}}"#, ms: 30))
        let server = try server(endpoint)
        let otid = try #require(
            server.stateJSON().value(at: "customers.0.subscriptions.0.originalTransactionId")?.stringValue)
        let body = #"{"originalTransactionId": "\#(otid)"}"#
        #expect(
            request(server, "POST", "/inApps/v1/messaging/performanceTest", body).json.value(at: "errorCode")?
                .integerValue == 4_040_021)
        #expect(
            request(server, "PUT", "/inApps/v1/messaging/realtime/url", #"{"realtimeURL": "http://127.0.0.1:9/"}"#)
                .status == 200)
        let started = request(server, "POST", "/inApps/v1/messaging/performanceTest", body)
        #expect(started.status == 200 && started.json.value(at: "config.totalRequests")?.integerValue == 6)
        let id = try #require(started.json.value(at: "requestId")?.stringValue)
        let result = request(server, "GET", "/inApps/v1/messaging/performanceTest/result/\(id)").json
        #expect(result.value(at: "result")?.stringValue == "PASS")
        #expect(result.value(at: "responseTimes.p90")?.integerValue == 30)
        #expect(endpoint.bodies.count == 6)
        endpoint.answer = Self.answer(#"{"message": {"messageIdentifier": "\#(Self.ids[0])"}}"#, ms: 800)
        let slow = request(server, "POST", "/inApps/v1/messaging/performanceTest", body)
        let slowId = try #require(slow.json.value(at: "requestId")?.stringValue)
        #expect(slowId != id)
        let failed = request(server, "GET", "/inApps/v1/messaging/performanceTest/result/\(slowId)").json
        #expect(failed.value(at: "result")?.stringValue == "FAIL")
        #expect(failed.value(at: "failures.TIMED_OUT")?.integerValue == 6)
        #expect(
            request(server, "POST", "/inApps/v1/messaging/performanceTest", #"{"originalTransactionId": "x"}"#).json
                .value(at: "errorCode")?.integerValue == 4_000_006)
    }

    @Test func everyRetentionPathNeedsABearerToken() throws {
        let server = try server(Endpoint(Self.answer("{}")))
        for (method, path) in SimulatorServer.servedPaths where path.hasPrefix("/inApps/v1/messaging/") {
            let concrete = path.replacingOccurrences(of: "*", with: Self.ids[0])
            let response = server.handle(ServerRequest(method: method, path: concrete))
            #expect(response.status == 401, "\(method) \(path)")
        }
        #expect(SimulatorServer.servedPaths.filter { $0.path.hasPrefix("/inApps/v1/messaging/") }.count == 14)
    }
}
