import Foundation
import SubscriptionSimulator

/// Apple's Retention Messaging API (14 endpoints under `/inApps/v1/messaging/`, the rules in
/// `ServerAPI/RetentionMessaging.swift`), the realtime requests of `viewCancellation`, the local performance test,
/// and the control API's `/simctl/v1/retention` (docs/server.md, "Retention Messaging"). The configuration lives in
/// ``ServerState/retention``; requests to the developer's endpoint are made without the lock, through
/// ``ServerConfiguration/realtime``.
extension SimulatorServer {
    /// One Retention Messaging endpoint.
    func retention(_ route: Route, _ captured: [String], _ request: ServerRequest) -> ServerResponse {
        if route == .initiatePerformanceTest { return initiatePerformanceTest(request.body) }
        let catalog = locked { state.store.catalog }
        let id = captured.first ?? ""
        let changes: Bool
        switch route {
        case .imageList, .messageList, .getDefaultMessage, .getRealtimeURL, .performanceTestResults: changes = false
        default: changes = true
        }
        if changes, let reason = configuration.readOnlyReason {
            return .apiError(.busy("\(route.pattern.method) \(route.pattern.path) refused: \(reason)"))
        }
        return locked {
            do throws(ServerAPIError) {
                var config = state.retention
                let answer: ServerResponse
                switch route {
                case .uploadImage:
                    let size = request.query.last { $0.name == "imageSize" }?.value
                    try config.uploadImage(identifier: id, imageSize: size, png: request.body)
                    answer = ServerResponse(status: 200)
                case .deleteImage:
                    try config.deleteImage(identifier: id)
                    answer = ServerResponse(status: 200)
                case .imageList: answer = .json(200, config.imageList)
                case .uploadMessage:
                    try config.uploadMessage(identifier: id, body: request.body)
                    answer = ServerResponse(status: 200)
                case .deleteMessage:
                    try config.deleteMessage(identifier: id)
                    answer = ServerResponse(status: 200)
                case .messageList: answer = .json(200, config.messageList)
                case .configureDefaultMessage:
                    try config.configureDefault(
                        productId: id, locale: captured.last ?? "", body: request.body, catalog: catalog)
                    answer = ServerResponse(status: 200)
                case .getDefaultMessage:
                    answer = .json(
                        200, try config.defaultMessage(productId: id, locale: captured.last ?? "", catalog: catalog))
                case .deleteDefaultMessage:
                    try config.deleteDefault(productId: id, locale: captured.last ?? "", catalog: catalog)
                    answer = ServerResponse(status: 200)
                case .configureRealtimeURL:
                    try config.configureRealtimeURL(body: request.body)
                    answer = ServerResponse(status: 200)
                case .getRealtimeURL: answer = .json(200, try config.realtimeURLAnswer())
                case .deleteRealtimeURL:
                    try config.deleteRealtimeURL()
                    answer = ServerResponse(status: 200)
                case .performanceTestResults:
                    if let running = state.runningPerformanceTest, running.requestId == id.lowercased() {
                        answer = .json(200, running.pendingJSON)
                    } else {
                        answer = .json(200, try config.performanceTestResult(requestId: id))
                    }
                default: throw .generalBadRequest
                }
                if changes && config != state.retention {
                    state.retention = config
                    changed()
                }
                return answer
            } catch { return .apiError(error) }
        }
    }

    // MARK: viewCancellation

    /// After a control call that may have run `viewCancellation` actions: makes the realtime request of every view
    /// not answered yet, one after the other, without the lock, and records each outcome under it. Returns the
    /// views answered, as the control API shows them. Call it only inside ``exclusively(_:refused:_:)``.
    func answerCancellationViews() -> [JSONValue] {
        let pending: [(Int, RealtimeRequest)] = locked {
            let views = state.store.cancellationViews
            return views.indices.filter { views[$0].outcome == nil }.map { ($0, views[$0].request) }
        }
        var shown: [JSONValue] = []
        for (index, request) in pending {
            let url = locked { state.retention.realtimeURL }
            var answer: RealtimeAnswer?
            if let url, let transport = configuration.realtime {
                answer = transport.post(
                    request.body(signer: signer), to: url,
                    timeoutMilliseconds: RetentionMessaging.responseTimeLimitMilliseconds)
            }
            shown.append(
                locked {
                    let outcome = state.retention.outcome(
                        of: answer, for: request, catalog: state.store.catalog, bundleId: state.store.app.bundleId,
                        offerKey: configuration.token.publicKey)
                    state.store.recordCancellationOutcome(
                        index, outcome: outcome, httpStatus: answer?.status,
                        elapsedMilliseconds: answer?.elapsedMilliseconds,
                        url: url)
                    changed()
                    let view = state.store.cancellationViews[index]
                    log(
                        "viewCancellation \(view.customer) \(request.productId) \(request.requestIdentifier)"
                            + (url.map { " -> \($0)" } ?? "")
                            + (view.elapsedMilliseconds.map { " in \($0) ms" } ?? "") + ": " + outcome.summary)
                    return Self.viewJSON(view)
                })
        }
        return shown
    }

    /// A cancellation view as the control API shows it; `accept` is the action that takes an offered product or
    /// offer (`POST /simctl/v1/actions`).
    static func viewJSON(_ view: CancellationView) -> JSONValue {
        var o: [String: JSONValue] = [
            "customer": .string(view.customer), "request": view.request.payload,
        ]
        if let status = view.httpStatus { o["httpStatus"] = .integer(Int64(status)) }
        if let ms = view.elapsedMilliseconds { o["elapsedMilliseconds"] = .integer(ms) }
        if let url = view.url { o["url"] = .string(url) }
        guard let outcome = view.outcome else {
            o["outcome"] = .object(["kind": .string("notAnswered")])
            return .object(o)
        }
        var out: [String: JSONValue] = ["kind": .string(outcome.kind), "summary": .string(outcome.summary)]
        switch outcome {
        case .message(let id): out["messageIdentifier"] = .string(id)
        case .alternateProduct(let id, let product, let plan):
            out["messageIdentifier"] = .string(id)
            out["productId"] = .string(product)
            if let plan { out["billingPlanType"] = .string(plan) }
            var change: [String: JSONValue] = ["customer": .string(view.customer), "product": .string(product)]
            if plan == "MONTHLY" { change["plan"] = .string("monthly") }
            out["accept"] = .object(["changePlan": .object(change)])
        case .promotionalOffer(let id, let product, let offer, let version):
            out["messageIdentifier"] = .string(id)
            out["productId"] = .string(product)
            out["offerIdentifier"] = .string(offer)
            out["signature"] = .string(version)
            out["accept"] = .object([
                "redeemOffer": .object([
                    "customer": .string(view.customer), "product": .string(product), "offer": .string(offer),
                ])
            ])
        case .defaultMessage(let id, let reason):
            out["messageIdentifier"] = .string(id)
            out["reason"] = .string(reason)
        case .noMessage(let reason): out["reason"] = .string(reason)
        }
        o["outcome"] = .object(out)
        return .object(o)
    }

    // MARK: performance test

    /// Initiate Performance Test: checks the request, then runs the test against the realtime URL before answering
    /// (Apple runs it in the background and answers at once; simctl answers when it has run, so the first Get
    /// Performance Test Results has the result [assumed]). Requests go out `maxConcurrentRequests` at a time, each
    /// timed out at `responseTimeThreshold`.
    func initiatePerformanceTest(_ body: [UInt8]) -> ServerResponse {
        if let reason = configuration.readOnlyReason {
            return .apiError(.busy("POST /inApps/v1/messaging/performanceTest refused: \(reason)"))
        }
        let config = configuration.performanceTest
        let prepared: Result<(RealtimeRequest, String, String), ServerAPIError> = locked {
            do throws(ServerAPIError) {
                let request = try Self.performanceTestSubject(body, state.store)
                guard let url = state.retention.realtimeURL else { throw .realtimeURLNotFound }
                guard state.runningPerformanceTest == nil else { throw .existingPerformanceTestRun }
                let id = RetentionMessaging.performanceTestId(
                    seed: configuration.scenario.seed, epoch: state.epoch,
                    number: state.retention.performanceTests.count + 1)
                state.runningPerformanceTest = RunningPerformanceTest(requestId: id, config: config, target: url)
                return .success((request, url, id))
            } catch { return .failure(error) }
        }
        let (subject, url, requestId): (RealtimeRequest, String, String)
        switch prepared {
        case .failure(let error): return .apiError(error)
        case .success(let value): (subject, url, requestId) = value
        }
        let samples = runPerformanceTest(subject, url: url, requestId: requestId, config: config)
        let result = PerformanceTestResult(requestId: requestId, target: url, config: config, samples: samples)
        locked {
            state.retention.record(result)
            state.runningPerformanceTest = nil
            changed()
        }
        log(
            "performance test \(requestId) against \(url): \(result.passed ? "PASS" : "FAIL"), success rate "
                + "\(result.successRate)%, p50 \(result.percentile(50)) ms, p90 \(result.percentile(90)) ms, p99 "
                + "\(result.percentile(99)) ms")
        return .json(200, .object(["config": config.json, "requestId": .string(requestId)]))
    }

    /// The test's requests, `maxConcurrentRequests` at once, without the lock; stops issuing new ones once
    /// `totalDuration` has passed or the server is stopping.
    func runPerformanceTest(_ subject: RealtimeRequest, url: String, requestId: String, config: PerformanceTestConfig)
        -> [PerformanceTestResult.Sample]
    {
        guard let transport = configuration.realtime else {
            return [PerformanceTestResult.Sample(milliseconds: 0, failure: SendAttemptResult.other.rawValue)]
        }
        let deadline = ContinuousClock().now.advanced(by: .milliseconds(config.totalDuration))
        let slots = ConcurrentSlots<PerformanceTestResult.Sample?>(count: config.totalRequests)
        let workers = max(1, min(config.maxConcurrentRequests, config.totalRequests))
        // One thread per concurrent request (they wait on the network; `concurrentPerform` would run only as many
        // at once as there are cores).
        let group = DispatchGroup()
        for worker in 0..<workers {
            group.enter()
            Thread { [self] in
                defer { group.leave() }
                performanceWorker(worker, of: workers, subject, url, requestId, config, transport, deadline, slots)
            }.start()
        }
        group.wait()
        return slots.values.compactMap { $0 }
    }

    /// One worker of ``runPerformanceTest(_:url:requestId:config:)``: requests `worker`, `worker + workers`, ...
    func performanceWorker(
        _ worker: Int, of workers: Int, _ subject: RealtimeRequest, _ url: String, _ requestId: String,
        _ config: PerformanceTestConfig, _ transport: any RealtimeTransport, _ deadline: ContinuousClock.Instant,
        _ slots: ConcurrentSlots<PerformanceTestResult.Sample?>
    ) {
        let clock = ContinuousClock()
        let signer = self.signer
        var index = worker
        while index < config.totalRequests {
            if clock.now >= deadline || locked({ stopping }) {
                slots.set(index, nil)
                index += workers
                continue
            }
            var request = subject
            request.requestIdentifier = RetentionMessaging.performanceRequestIdentifier(
                testId: requestId, index: index)
            let answer = transport.post(
                request.body(signer: signer), to: url, timeoutMilliseconds: config.responseTimeThreshold)
            slots.set(
                index,
                PerformanceTestResult.Sample(
                    milliseconds: answer.elapsedMilliseconds,
                    failure: RetentionMessaging.performanceFailure(answer, threshold: config.responseTimeThreshold)?
                        .rawValue))
            index += workers
        }
    }

    /// Initiate Performance Test's body: an `originalTransactionId` (4000006 when malformed) of a purchased
    /// (4000185 for a family member's share), active auto-renewable subscription of a customer (4000187 for another
    /// transaction of it; 4000211 otherwise [assumed]), as `PerformanceTestRequest` asks. The request the test sends
    /// is that subscription's, locale `en-US` [assumed], signed at the store's clock.
    static func performanceTestSubject(_ body: [UInt8], _ store: SimulatedStore) throws(ServerAPIError)
        -> RealtimeRequest
    {
        guard case .object(let members)? = try? CanonicalJSON.parse(String(decoding: body, as: UTF8.self)),
            let id = members["originalTransactionId"]?.stringValue
        else { throw .invalidPerformanceTestRequest }
        try ServerAPI.checkTransactionId(id)
        for customer in store.customers {
            for s in store.subscriptions(for: customer) {
                if s.latestTransaction.transactionId == id && s.originalTransactionId != id {
                    throw ServerAPIError(
                        httpStatus: 400, errorCode: 4_000_187,
                        errorMessage: "Invalid request. The transaction id is not an original transaction id.")
                }
                guard s.originalTransactionId == id else { continue }
                guard s.latestTransaction.ownership == .purchased else {
                    throw ServerAPIError(
                        httpStatus: 400, errorCode: 4_000_185,
                        errorMessage: "Invalid request. Family Sharing transactions aren't supported by this endpoint.")
                }
                guard s.state.phase.isEntitled, let appAppleId = store.app.appAppleId else {
                    throw .invalidPerformanceTestRequest
                }
                return RealtimeRequest(
                    originalTransactionId: id, appAppleId: appAppleId, productId: s.state.productId,
                    userLocale: "en-US", requestIdentifier: "", signedDate: store.now,
                    environment: store.app.environment)
            }
        }
        throw .invalidPerformanceTestRequest
    }

    // MARK: control API

    /// `GET /simctl/v1/retention`: the configuration, the performance tests and every cancellation view.
    func retentionJSON(_ snapshot: ServerState) -> JSONValue {
        let config = snapshot.retention
        var o: [String: JSONValue] = [
            "images": .array(
                config.images.map {
                    .object([
                        "imageIdentifier": .string($0.identifier), "imageState": .string($0.state.rawValue),
                        "imageSize": .string($0.size.rawValue), "width": .integer(Int64($0.width)),
                        "height": .integer(Int64($0.height)),
                    ])
                }),
            "messages": .array(
                config.messages.map {
                    var m: [String: JSONValue] = [
                        "messageIdentifier": .string($0.identifier), "messageState": .string($0.state.rawValue),
                        "header": .string($0.header), "body": .string($0.body),
                        "bulletPoints": .integer(Int64($0.bulletPoints.count)),
                    ]
                    if let image = $0.imageIdentifier { m["imageIdentifier"] = .string(image) }
                    return .object(m)
                }),
            "defaultMessages": .array(
                config.defaults.keys.sorted().map { key in
                    let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false)
                    return .object([
                        "productId": .string(String(parts[0])), "locale": .string(String(parts[1])),
                        "messageIdentifier": .string(config.defaults[key]!),
                    ])
                }),
            "performanceTests": .array(
                config.performanceTests.map { test in
                    guard case .object(var members) = test.json else { return test.json }
                    members["requestId"] = .string(test.requestId)
                    return .object(members)
                }),
            "cancellationViews": .array(snapshot.store.cancellationViews.map(Self.viewJSON)),
        ]
        if let url = config.realtimeURL { o["realtimeURL"] = .string(url) }
        return .object(o)
    }

    /// `POST /simctl/v1/retention/review` with `{"identifier": UUID, "state": "APPROVED"}` (or `REJECTED`,
    /// `PENDING`): Apple's review of an uploaded image or message (rule retention-review).
    func reviewRetention(_ request: ServerRequest) -> ServerResponse {
        let members: [String: JSONValue]
        switch Self.jsonObject(request.body) {
        case .failure(let response): return response
        case .success(let object): members = object
        }
        if let unknown = members.keys.sorted().first(where: { $0 != "identifier" && $0 != "state" }) {
            return .problem(400, "unknown key '\(unknown)' in the review request; expected identifier and state")
        }
        guard let id = members["identifier"]?.stringValue else {
            return .problem(400, "expected `identifier`, the UUID of an uploaded image or message")
        }
        guard let raw = members["state"]?.stringValue, let review = RetentionMessaging.ReviewState(rawValue: raw) else {
            return .problem(400, "expected `state` as APPROVED, REJECTED or PENDING")
        }
        if let reason = configuration.readOnlyReason { return .problem(409, "review refused: \(reason)") }
        return locked {
            guard state.retention.review(id, review) else {
                return .problem(404, "no uploaded image or message has the identifier '\(Self.shownQuery(id))'")
            }
            changed()
            return .json(200, .object(["identifier": .string(id.lowercased()), "state": .string(review.rawValue)]))
        }
    }
}

/// A performance test being run (between Initiate Performance Test's checks and its answer).
struct RunningPerformanceTest: Sendable {
    var requestId: String
    var config: PerformanceTestConfig
    var target: String

    /// Get Performance Test Results while it runs: `PENDING`.
    var pendingJSON: JSONValue {
        .object([
            "config": config.json, "target": .string(target), "result": .string("PENDING"),
            "numPending": .integer(Int64(config.totalRequests)),
        ])
    }
}
