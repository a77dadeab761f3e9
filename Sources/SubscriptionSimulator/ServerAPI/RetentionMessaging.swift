/// Apple's Retention Messaging API (developer.apple.com/documentation/retentionmessaging): the images, messages,
/// default messages, realtime URL and performance tests an app configures, with Apple's checks and error codes (the
/// codes of Apple's Python library 3.1.2, `APIError`). Pure: no clock, no network; `simctl serve` keeps one
/// configuration per server and makes the realtime and performance-test requests itself (`SimctlServer`).
///
/// Rules and their sources (docs/server.md, "Retention Messaging"):
/// - retention-image-png: Upload Image takes a PNG without transparency; a `FULL_SIZE` image is 3840 pixels wide and
///   160 to 2160 high, a `BULLET_POINT` image 1024 × 1024 (Apple: Upload Image). Anything else is
///   `InvalidImageError` (4000161); an `imageSize` other than the two is `BadRequestImageSizeError` (4000216)
///   [assumed: Apple lists that error on Upload Message].
/// - retention-limits: at most 2000 images (`MaximumNumberOfImagesReachedError`, 4030014) and 2000 messages
///   (`MaximumNumberOfMessagesReachedError`, 4030016) per app; an identifier used twice is 409 (4090000, 4090001)
///   (Apple: "This endpoint isn't idempotent").
/// - retention-message-lengths: header ≤ 66 (4000162), body ≤ 144 (4000163), altText ≤ 150 (4000175), bullet-point
///   text ≤ 66 (4000219), at most 5 bullet points (4000218), `ABOVE_IMAGE` needs an image (4000224) (Apple: Upload
///   Message's table; the library's validators). Lengths count Unicode scalars [assumed: Apple says "UTF-8-encoded
///   value with a maximum length"; the library counts code points].
/// - retention-review: uploads start `PENDING` and Apple reviews them; "In the sandbox testing environment, the
///   system automatically sets message and image states to APPROVED" (Apple: Upload Message). In Production simctl
///   keeps them `PENDING` until the control API reviews them (`POST /simctl/v1/retention/review`) [assumed: the
///   review is Apple's, by people].
/// - retention-default-message: a default needs an auto-renewable product of the catalogue (`InvalidProductIdError`,
///   4000023 [assumed: the App Store Server API's code for an invalid product id]), a valid locale
///   (`InvalidLocaleError`, 4000164), a known message (4040015) that is `APPROVED` (4030017) with its image
///   `APPROVED` (4030018); configuring again overwrites (Apple: Configure Default Message).
/// - retention-realtime-url: an absolute `http` or `https` URL of at most 256 characters (4000215; the library's
///   validator); in Production it needs a passed performance test first (`ForbiddenNoPassingTestError`, 4030026).
public struct RetentionMessaging: Hashable, Sendable {
    /// An image's or message's review state (`imageState`, `messageState`).
    public enum ReviewState: String, Hashable, Sendable, CaseIterable {
        case pending = "PENDING"
        case approved = "APPROVED"
        case rejected = "REJECTED"
    }

    /// `imageSize`.
    public enum ImageSize: String, Hashable, Sendable, CaseIterable {
        case fullSize = "FULL_SIZE"
        case bulletPoint = "BULLET_POINT"
    }

    public struct Image: Hashable, Sendable {
        public var identifier: String
        public var size: ImageSize
        public var state: ReviewState
        public var width: Int
        public var height: Int
    }

    public struct BulletPoint: Hashable, Sendable {
        public var text: String
        public var imageIdentifier: String
        public var altText: String
    }

    public struct Message: Hashable, Sendable {
        public var identifier: String
        public var header: String
        public var body: String
        public var imageIdentifier: String?
        public var altText: String?
        public var headerPosition: String?
        public var bulletPoints: [BulletPoint]
        public var state: ReviewState

        /// Every image the message uses (its own and its bullet points').
        var imageIdentifiers: [String] { (imageIdentifier.map { [$0] } ?? []) + bulletPoints.map(\.imageIdentifier) }
    }

    /// Images in upload order.
    public private(set) var images: [Image] = []
    /// Messages in upload order.
    public private(set) var messages: [Message] = []
    /// The default message of each product and locale (`"productId\u{0}locale"`).
    public private(set) var defaults: [String: String] = [:]
    /// The Get Retention Message endpoint's URL (Configure Realtime URL), nil when none is configured.
    public private(set) var realtimeURL: String?
    /// Performance tests run, in order.
    public private(set) var performanceTests: [PerformanceTestResult] = []
    /// Whether uploads are `APPROVED` at once (Sandbox, LocalTesting) or `PENDING` (Production).
    public let approvesAtOnce: Bool
    /// Whether a production realtime URL needs a passed performance test (Production).
    public let needsPassedTest: Bool

    public static let maximumImages = 2000
    public static let maximumMessages = 2000
    public static let maximumBulletPoints = 5
    public static let maximumHeader = 66
    public static let maximumBody = 144
    public static let maximumAltText = 150
    public static let maximumBulletPointText = 66
    public static let maximumRealtimeURL = 256
    /// Apple's limit for a realtime answer: "Your endpoint needs to respond within 700 ms in the production
    /// environment; otherwise, the App Store server times out and the request fails" (Setting up your Get Retention
    /// Message endpoint); the sandbox performance test's threshold is "approximately 700 ms" (Initiate Performance
    /// Test). simctl uses 700 ms in every environment.
    public static let responseTimeLimitMilliseconds: Int64 = 700

    public init(environment: SimulatedEnvironment, realtimeURL: String? = nil) {
        approvesAtOnce = environment != .production
        needsPassedTest = environment == .production
        self.realtimeURL = realtimeURL
    }

    // MARK: images

    /// Upload Image: `PUT /inApps/v1/messaging/image/{imageIdentifier}?imageSize=`, body a PNG.
    public mutating func uploadImage(identifier: String, imageSize: String?, png: [UInt8]) throws(ServerAPIError) {
        let id = try Self.uuid(identifier, .invalidImage)
        guard let size = ImageSize(rawValue: imageSize ?? ImageSize.fullSize.rawValue) else {
            throw .badRequestImageSize
        }
        guard let header = PNGHeader(png) else { throw .invalidImage }
        guard !header.hasTransparency, Self.sizeFits(size, width: header.width, height: header.height) else {
            throw .invalidImage
        }
        guard !images.contains(where: { $0.identifier == id }) else { throw .imageAlreadyExists }
        guard images.count < Self.maximumImages else { throw .maximumNumberOfImagesReached }
        images.append(
            Image(
                identifier: id, size: size, state: approvesAtOnce ? .approved : .pending, width: header.width,
                height: header.height))
    }

    /// Rule retention-image-png's pixel sizes.
    static func sizeFits(_ size: ImageSize, width: Int, height: Int) -> Bool {
        switch size {
        case .fullSize: return width == 3840 && (160...2160).contains(height)
        case .bulletPoint: return width == 1024 && height == 1024
        }
    }

    /// Delete Image: 404 for an unknown image, 403 while a message uses it.
    public mutating func deleteImage(identifier: String) throws(ServerAPIError) {
        let id = try Self.uuid(identifier, .imageNotFound)
        guard let index = images.firstIndex(where: { $0.identifier == id }) else { throw .imageNotFound }
        guard !messages.contains(where: { $0.imageIdentifiers.contains(id) }) else { throw .imageInUse }
        images.remove(at: index)
    }

    /// Get Image List's `GetImageListResponse`.
    public var imageList: JSONValue {
        .object([
            "imageIdentifiers": .array(
                images.map {
                    .object([
                        "imageIdentifier": .string($0.identifier), "imageState": .string($0.state.rawValue),
                        "imageSize": .string($0.size.rawValue),
                    ])
                })
        ])
    }

    // MARK: messages

    /// Upload Message: `PUT /inApps/v1/messaging/message/{messageIdentifier}`, body `UploadMessageRequestBody`.
    public mutating func uploadMessage(identifier: String, body: [UInt8]) throws(ServerAPIError) {
        let id = try Self.uuid(identifier, .generalBadRequest)
        let request = try RequestBody(body)
        let header = try request.string("header", required: true, .generalBadRequest) { _ in true }!
        guard header.unicodeScalars.count <= Self.maximumHeader else { throw .headerTooLong }
        let text = try request.string("body", required: true, .generalBadRequest) { _ in true }!
        guard text.unicodeScalars.count <= Self.maximumBody else { throw .bodyTooLong }
        let position = try request.string("headerPosition", required: false, .generalBadRequest) {
            $0 == "ABOVE_BODY" || $0 == "ABOVE_IMAGE"
        }
        var imageId: String?
        var altText: String?
        if let image = request.given("image") {
            guard case .object(let members) = image, let raw = members["imageIdentifier"]?.stringValue,
                let alt = members["altText"]?.stringValue
            else { throw .generalBadRequest }
            guard alt.unicodeScalars.count <= Self.maximumAltText else { throw .altTextTooLong }
            imageId = try checkedImage(raw, .fullSize)
            altText = alt
        }
        if position == "ABOVE_IMAGE" && imageId == nil { throw .aboveImageRequiresAnImage }
        var bullets: [BulletPoint] = []
        if let given = request.given("bulletPoints") {
            guard case .array(let items) = given else { throw .generalBadRequest }
            guard items.count <= Self.maximumBulletPoints else { throw .tooManyBulletPoints }
            for item in items {
                guard case .object(let members) = item, let text = members["text"]?.stringValue,
                    let raw = members["imageIdentifier"]?.stringValue, let alt = members["altText"]?.stringValue
                else { throw .generalBadRequest }
                guard text.unicodeScalars.count <= Self.maximumBulletPointText else { throw .bulletPointTextTooLong }
                guard alt.unicodeScalars.count <= Self.maximumAltText else { throw .altTextTooLong }
                bullets.append(
                    BulletPoint(text: text, imageIdentifier: try checkedImage(raw, .bulletPoint), altText: alt))
            }
        }
        guard !messages.contains(where: { $0.identifier == id }) else { throw .messageAlreadyExists }
        guard messages.count < Self.maximumMessages else { throw .maximumNumberOfMessagesReached }
        messages.append(
            Message(
                identifier: id, header: header, body: text, imageIdentifier: imageId, altText: altText,
                headerPosition: position, bulletPoints: bullets, state: approvesAtOnce ? .approved : .pending))
    }

    /// An image a message names: uploaded (`ImageNotFoundError` [assumed]) and of the size its place needs
    /// (`BadRequestImageSizeError` [assumed]).
    func checkedImage(_ raw: String, _ size: ImageSize) throws(ServerAPIError) -> String {
        let id = try Self.uuid(raw, .imageNotFound)
        guard let image = images.first(where: { $0.identifier == id }) else { throw .imageNotFound }
        guard image.size == size else { throw .badRequestImageSize }
        return id
    }

    /// Delete Message: 404 for an unknown message. The default messages that named it are removed with it
    /// [assumed: Apple does not say].
    public mutating func deleteMessage(identifier: String) throws(ServerAPIError) {
        let id = try Self.uuid(identifier, .messageNotFound)
        guard let index = messages.firstIndex(where: { $0.identifier == id }) else { throw .messageNotFound }
        messages.remove(at: index)
        defaults = defaults.filter { $0.value != id }
    }

    /// Get Message List's `GetMessageListResponse`.
    public var messageList: JSONValue {
        .object([
            "messageIdentifiers": .array(
                messages.map {
                    .object([
                        "messageIdentifier": .string($0.identifier), "messageState": .string($0.state.rawValue),
                    ])
                })
        ])
    }

    /// The message `identifier`, if uploaded.
    public func message(_ identifier: String) -> Message? {
        messages.first { $0.identifier == identifier.lowercased() }
    }

    /// Whether the message and every image it uses are `APPROVED` (Apple: "Both the message and its image, if any,
    /// need to be in an APPROVED state before the system can display a message").
    public func isDisplayable(_ message: Message) -> Bool {
        message.state == .approved
            && message.imageIdentifiers.allSatisfy { id in images.first { $0.identifier == id }?.state == .approved }
    }

    /// Sets the review state of an image or message (the control API; rule retention-review). Returns false when
    /// neither has that identifier.
    public mutating func review(_ identifier: String, _ state: ReviewState) -> Bool {
        let id = identifier.lowercased()
        if let index = images.firstIndex(where: { $0.identifier == id }) {
            images[index].state = state
            return true
        }
        if let index = messages.firstIndex(where: { $0.identifier == id }) {
            messages[index].state = state
            return true
        }
        return false
    }

    // MARK: default messages

    /// Configure Default Message: `PUT /inApps/v1/messaging/default/{productId}/{locale}`.
    public mutating func configureDefault(productId: String, locale: String, body: [UInt8], catalog: Catalog)
        throws(ServerAPIError)
    {
        try Self.checkDefaultKey(productId, locale, catalog)
        let request = try RequestBody(body)
        let raw = try request.string("messageIdentifier", required: true, .messageNotFound) { _ in true }!
        let id = try Self.uuid(raw, .messageNotFound)
        guard let message = message(id) else { throw .messageNotFound }
        guard message.state == .approved else { throw .messageNotApproved }
        guard isDisplayable(message) else { throw .imageNotApproved }
        defaults[Self.key(productId, locale)] = id
    }

    /// Get Default Message's `DefaultConfigurationResponse`.
    public func defaultMessage(productId: String, locale: String, catalog: Catalog) throws(ServerAPIError) -> JSONValue
    {
        try Self.checkDefaultKey(productId, locale, catalog)
        guard let id = defaults[Self.key(productId, locale)] else { throw .defaultMessageNotFound }
        return .object(["messageIdentifier": .string(id)])
    }

    /// Delete Default Message.
    public mutating func deleteDefault(productId: String, locale: String, catalog: Catalog) throws(ServerAPIError) {
        try Self.checkDefaultKey(productId, locale, catalog)
        guard defaults.removeValue(forKey: Self.key(productId, locale)) != nil else { throw .defaultMessageNotFound }
    }

    /// The default message shown for `productId` in `locale`, if one is configured and still displayable.
    public func defaultMessage(productId: String, locale: String) -> String? {
        guard let id = defaults[Self.key(productId, locale)], let message = message(id), isDisplayable(message) else {
            return nil
        }
        return id
    }

    static func key(_ productId: String, _ locale: String) -> String { productId + "\u{0}" + locale }

    static func checkDefaultKey(_ productId: String, _ locale: String, _ catalog: Catalog) throws(ServerAPIError) {
        guard catalog[productId]?.isSubscription == true else { throw .invalidProductId }
        guard isLocale(locale) else { throw .invalidLocale }
    }

    /// A locale: a language of 2–3 lowercase letters, optionally `-` or `_` and a region (2 letters or 3 digits) or
    /// a script (4 letters), as in `en`, `en-US`, `en_US`, `zh-Hans` [assumed: Apple does not list its locales].
    public static func isLocale(_ text: String) -> Bool {
        let parts = text.split(omittingEmptySubsequences: false) { $0 == "-" || $0 == "_" }
        guard (1...3).contains(parts.count), let language = parts.first, (2...3).contains(language.count),
            language.allSatisfy({ $0.isASCII && $0.isLowercase })
        else { return false }
        for part in parts.dropFirst() {
            let letters = part.allSatisfy { $0.isASCII && $0.isLetter }
            let digits = part.allSatisfy { $0.isASCII && $0.isNumber }
            guard (part.count == 2 && letters) || (part.count == 3 && digits) || (part.count == 4 && letters) else {
                return false
            }
        }
        return true
    }

    // MARK: realtime URL

    /// Configure Realtime URL: body `RealtimeUrlRequest` (`realtimeURL`).
    public mutating func configureRealtimeURL(body: [UInt8]) throws(ServerAPIError) {
        let request = try RequestBody(body)
        let url = try request.string("realtimeURL", required: true, .badRequestRealtimeURL) { Self.isRealtimeURL($0) }!
        if needsPassedTest && !performanceTests.contains(where: { $0.passed }) { throw .forbiddenNoPassingTest }
        realtimeURL = url
    }

    /// Sets the realtime URL without checks (`simctl serve --realtime-url`).
    public mutating func setRealtimeURL(_ url: String?) { realtimeURL = url }

    /// Rule retention-realtime-url's form.
    public static func isRealtimeURL(_ text: String) -> Bool {
        guard text.count <= maximumRealtimeURL, !text.contains(where: { $0 == " " || $0.isNewline }) else {
            return false
        }
        for scheme in ["http://", "https://"] where text.lowercased().hasPrefix(scheme) {
            let rest = text.dropFirst(scheme.count)
            let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            return !host.isEmpty && !host.hasPrefix(":")
        }
        return false
    }

    /// Get Realtime URL's `RealtimeUrlResponse`.
    public func realtimeURLAnswer() throws(ServerAPIError) -> JSONValue {
        guard let realtimeURL else { throw .realtimeURLNotFound }
        return .object(["realtimeURL": .string(realtimeURL)])
    }

    /// Delete Realtime URL: 404 when none is configured [assumed].
    public mutating func deleteRealtimeURL() throws(ServerAPIError) {
        guard realtimeURL != nil else { throw .realtimeURLNotFound }
        realtimeURL = nil
    }

    // MARK: performance tests

    /// Records a finished performance test.
    public mutating func record(_ result: PerformanceTestResult) { performanceTests.append(result) }

    /// Get Performance Test Results: 4000212 for a `requestId` that is not a UUID, 4040018 for an unknown one.
    public func performanceTestResult(requestId: String) throws(ServerAPIError) -> JSONValue {
        let id = try Self.uuid(requestId, .invalidRequestId)
        guard let result = performanceTests.first(where: { $0.requestId == id }) else {
            throw .performanceTestRunNotFound
        }
        return result.json
    }

    // MARK: helpers

    /// `text` as a lowercase UUID (8-4-4-4-12 hexadecimal digits), or `error`.
    static func uuid(_ text: String, _ error: ServerAPIError) throws(ServerAPIError) -> String {
        let lower = text.lowercased()
        let groups = lower.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12], groups.allSatisfy({ $0.allSatisfy(\.isHexDigit) }) else {
            throw error
        }
        return lower
    }
}

/// The parts of a PNG's header that Upload Image checks: the signature, `IHDR`'s size and colour type, and whether a
/// `tRNS` chunk (transparency) comes before the image data.
struct PNGHeader {
    var width: Int
    var height: Int
    var hasTransparency: Bool

    init?(_ bytes: [UInt8]) {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 33, Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
            return nil
        }
        func word(_ at: Int) -> Int {
            Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        width = word(16)
        height = word(20)
        guard width > 0, height > 0 else { return nil }
        // Colour types 4 and 6 carry an alpha channel.
        var transparent = bytes[25] == 4 || bytes[25] == 6
        var at = 8
        while at + 8 <= bytes.count {
            let length = word(at)
            let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
            if type == "tRNS" { transparent = true }
            if type == "IDAT" || type == "IEND" { break }
            guard length >= 0, at + 12 + length <= bytes.count else { return nil }
            at += 12 + length
        }
        hasTransparency = transparent
    }
}

extension ServerAPIError {
    // Retention Messaging API errors: codes from Apple's Python library 3.1.2 (`APIError`); messages in Apple's
    // "Invalid request. …" wording where its library's test resources publish them (4000164), else [assumed].
    public static let invalidImage = bad(4_000_161, "Invalid request. The image is invalid.")
    public static let headerTooLong = bad(4_000_162, "Invalid request. The header text is too long.")
    public static let bodyTooLong = bad(4_000_163, "Invalid request. The body text is too long.")
    public static let invalidLocale = bad(4_000_164, "Invalid request. Locale is invalid.")
    public static let altTextTooLong = bad(4_000_175, "Invalid request. The alternative text is too long.")
    public static let invalidPerformanceTestRequest = bad(
        4_000_211, "Invalid request. The performance test request is invalid.")
    public static let invalidRequestId = bad(4_000_212, "Invalid request. The request id is invalid.")
    public static let existingPerformanceTestRun = bad(
        4_000_213, "Invalid request. A performance test is already running.")
    public static let badRequestRealtimeURL = bad(4_000_215, "Invalid request. The realtime URL is invalid.")
    public static let badRequestImageSize = bad(4_000_216, "Invalid request. The image size is invalid.")
    public static let tooManyBulletPoints = bad(4_000_218, "Invalid request. There are too many bullet points.")
    public static let bulletPointTextTooLong = bad(4_000_219, "Invalid request. The bullet point text is too long.")
    public static let aboveImageRequiresAnImage = bad(
        4_000_224, "Invalid request. The header position ABOVE_IMAGE requires an image.")
    public static let maximumNumberOfImagesReached = ServerAPIError(
        httpStatus: 403, errorCode: 4_030_014, errorMessage: "The maximum number of images has been reached.")
    public static let maximumNumberOfMessagesReached = ServerAPIError(
        httpStatus: 403, errorCode: 4_030_016, errorMessage: "The maximum number of messages has been reached.")
    public static let messageNotApproved = ServerAPIError(
        httpStatus: 403, errorCode: 4_030_017, errorMessage: "The message is not approved.")
    public static let imageNotApproved = ServerAPIError(
        httpStatus: 403, errorCode: 4_030_018, errorMessage: "The image is not approved.")
    public static let imageInUse = ServerAPIError(
        httpStatus: 403, errorCode: 4_030_019, errorMessage: "The request is forbidden because the image is in use.")
    public static let forbiddenNoPassingTest = ServerAPIError(
        httpStatus: 403, errorCode: 4_030_026,
        errorMessage: "A passing performance test is required before setting a production URL.")
    public static let imageNotFound = ServerAPIError(
        httpStatus: 404, errorCode: 4_040_014, errorMessage: "Image not found.")
    public static let messageNotFound = ServerAPIError(
        httpStatus: 404, errorCode: 4_040_015, errorMessage: "Message not found.")
    public static let performanceTestRunNotFound = ServerAPIError(
        httpStatus: 404, errorCode: 4_040_018, errorMessage: "Performance test run not found.")
    public static let defaultMessageNotFound = ServerAPIError(
        httpStatus: 404, errorCode: 4_040_020, errorMessage: "Default message not found.")
    public static let realtimeURLNotFound = ServerAPIError(
        httpStatus: 404, errorCode: 4_040_021, errorMessage: "Realtime URL not found.")
    public static let imageAlreadyExists = ServerAPIError(
        httpStatus: 409, errorCode: 4_090_000, errorMessage: "Image already exists.")
    public static let messageAlreadyExists = ServerAPIError(
        httpStatus: 409, errorCode: 4_090_001, errorMessage: "Message already exists.")
}

extension RealtimeRequest {
    /// The POST body: `RealtimeRequestBody`.
    public func body(signer: some PayloadSigner) -> [UInt8] {
        Array(
            CanonicalJSON.string(.object(["signedPayload": .string(JWS.compact(payload: payload, signer: signer))]))
                .utf8)
    }
}

/// One performance test (Initiate Performance Test), run by `simctl serve` against the realtime URL: its
/// `PerformanceTestConfig` and, once run, Apple's `PerformanceTestResultResponse`.
public struct PerformanceTestResult: Hashable, Sendable {
    public var requestId: String
    public var target: String
    public var config: PerformanceTestConfig
    /// Each request's time in milliseconds and whether it succeeded (`nil` failure), in the order made.
    public var samples: [Sample]

    public struct Sample: Hashable, Sendable {
        public var milliseconds: Int64
        /// Apple's `SendAttemptResult` raw value of the failure, nil for a success.
        public var failure: String?
        public init(milliseconds: Int64, failure: String?) {
            self.milliseconds = milliseconds
            self.failure = failure
        }
    }

    public init(requestId: String, target: String, config: PerformanceTestConfig, samples: [Sample]) {
        self.requestId = requestId
        self.target = target
        self.config = config
        self.samples = samples
    }

    /// `successRate`: the whole percentage of requests answered in time with a valid body.
    public var successRate: Int {
        samples.isEmpty ? 0 : samples.filter { $0.failure == nil }.count * 100 / samples.count
    }

    /// Rule retention-performance-pass [assumed: Apple documents the parameters, not how they combine]: every request
    /// made, and at least `successRateThreshold` percent of them succeeded.
    public var passed: Bool {
        samples.count == config.totalRequests && successRate >= config.successRateThreshold
    }

    /// The `p`-th percentile (nearest rank) of the request times.
    public func percentile(_ p: Int) -> Int64 {
        let sorted = samples.map(\.milliseconds).sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = max(1, (p * sorted.count + 99) / 100)
        return sorted[min(rank, sorted.count) - 1]
    }

    /// Apple's `PerformanceTestResultResponse`.
    public var json: JSONValue {
        var failures: [String: JSONValue] = [:]
        for sample in samples {
            if let failure = sample.failure {
                failures[failure] = .integer((failures[failure]?.integerValue ?? 0) + 1)
            }
        }
        let total = samples.reduce(Int64(0)) { $0 + $1.milliseconds }
        return .object([
            "config": config.json, "target": .string(target), "result": .string(passed ? "PASS" : "FAIL"),
            "successRate": .integer(Int64(successRate)), "numPending": .integer(0),
            "responseTimes": .object([
                "average": .integer(samples.isEmpty ? 0 : total / Int64(samples.count)),
                "p50": .integer(percentile(50)), "p90": .integer(percentile(90)), "p95": .integer(percentile(95)),
                "p99": .integer(percentile(99)),
            ]),
            "failures": .object(failures),
        ])
    }
}

/// `PerformanceTestConfig`. The defaults are simctl's [assumed: Apple returns its parameters with each test and
/// documents only the "approximately 700 ms" response time].
public struct PerformanceTestConfig: Hashable, Sendable {
    public var maxConcurrentRequests: Int
    public var totalRequests: Int
    public var totalDuration: Int64
    public var responseTimeThreshold: Int64
    public var successRateThreshold: Int

    public init(
        maxConcurrentRequests: Int = 10, totalRequests: Int = 100, totalDuration: Int64 = 60_000,
        responseTimeThreshold: Int64 = RetentionMessaging.responseTimeLimitMilliseconds, successRateThreshold: Int = 90
    ) {
        self.maxConcurrentRequests = maxConcurrentRequests
        self.totalRequests = totalRequests
        self.totalDuration = totalDuration
        self.responseTimeThreshold = responseTimeThreshold
        self.successRateThreshold = successRateThreshold
    }

    public var json: JSONValue {
        .object([
            "maxConcurrentRequests": .integer(Int64(maxConcurrentRequests)),
            "totalRequests": .integer(Int64(totalRequests)), "totalDuration": .integer(totalDuration),
            "responseTimeThreshold": .integer(responseTimeThreshold),
            "successRateThreshold": .integer(Int64(successRateThreshold)),
        ])
    }
}

extension RetentionMessaging {
    /// The `requestId` of the `n`-th performance test (from 1) of a store with `seed` and `epoch`, a UUID
    /// (deterministic: rule retention-ids).
    public static func performanceTestId(seed: UInt64, epoch: UInt32, number: Int) -> String {
        RetentionIdentifiers.derivedUUID(seed: seed, epoch: epoch, domain: 0x5045_5246, number: UInt64(number))
    }

    /// The `requestIdentifier` of request `index` of a performance test.
    public static func performanceRequestIdentifier(testId: String, index: Int) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in testId.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return RetentionIdentifiers.derivedUUID(seed: hash, epoch: 0, domain: 0x5245_5154, number: UInt64(index) + 1)
    }
}

extension RetentionMessaging {
    /// A JSON object with exactly one of `message`, `alternateProduct`, `promotionalOffer`, `advancedCommerceInfo`,
    /// an object.
    public static func isResponseBodyShape(_ body: [UInt8]) -> Bool {
        guard let value = try? CanonicalJSON.parse(String(decoding: body, as: UTF8.self)),
            case .object(let members) = value
        else { return false }
        let options = ["message", "alternateProduct", "promotionalOffer", "advancedCommerceInfo"].compactMap {
            members[$0].flatMap { $0 == .null ? nil : $0 }
        }
        guard options.count == 1, case .object = options[0] else { return false }
        return true
    }
}
