/// The environment a payload claims to come from (`environment` in every payload; reference §2.2).
///
/// Apple's verifiers skip signature checks for `LocalTesting` (the official libraries' value for unit tests) and
/// `Xcode` (StoreKit Testing), so payloads in those carry a placeholder signature. `Sandbox` and `Production`
/// payloads are signed with ES256 by a certificate chain in Apple's shape (``SigningChain``), which Apple's
/// `SignedDataVerifier` accepts when given the chain's root (docs/signing.md).
public enum SimulatedEnvironment: String, Hashable, Sendable, CaseIterable {
    case localTesting = "LocalTesting"
    case xcode = "Xcode"
    case sandbox = "Sandbox"
    case production = "Production"
}

/// Billing grace period setting, as in App Store Connect (`THREE_DAYS`, `SIXTEEN_DAYS`, `TWENTY_EIGHT_DAYS`;
/// reference §5.4, S-GP-ASC).
public enum GracePeriodSetting: Hashable, Sendable, CaseIterable {
    case off
    case threeDays
    case sixteenDays
    case twentyEightDays

    public var days: Int {
        switch self {
        case .off: return 0
        case .threeDays: return 3
        case .sixteenDays: return 16
        case .twentyEightDays: return 28
        }
    }
}

/// Which renewals the billing grace period covers (App Store Connect `ALL_RENEWALS` / `PAID_TO_PAID_ONLY`).
public enum GraceEligibility: Hashable, Sendable, CaseIterable {
    /// Every renewal, including the first charge after a free trial.
    case allRenewals
    /// Only a paid period renewing into a paid period: a free trial converting gets no grace.
    case paidToPaidOnly
}

/// A storefront: ISO 3166-1 alpha-3 country code and Apple's numeric storefront id.
public struct Storefront: Hashable, Sendable {
    public var countryCode: String
    public var id: String

    public init(countryCode: String, id: String) {
        self.countryCode = countryCode
        self.id = id
    }

    /// The United States storefront (`USA`, `143441`), the default.
    public static let unitedStates = Storefront(countryCode: "USA", id: "143441")
}

/// `originalPlatform` of an `AppTransaction`: the platform on which the customer originally purchased the app
/// (Apple's JWSAppTransactionDecodedPayload; the values of Apple's library enum `PurchasePlatform`).
public enum PurchasePlatform: String, Hashable, Sendable, CaseIterable {
    case iOS = "iOS"
    case macOS = "macOS"
    case tvOS = "tvOS"
    case visionOS = "visionOS"
}

/// The app under test and the store settings that apply to it.
public struct AppConfiguration: Hashable, Sendable {
    public var bundleId: String
    /// The app's build version, `data.bundleVersion` (default `"1.0"`).
    public var bundleVersion: String
    /// `data.appAppleId`; omitted from payloads when `nil`.
    public var appAppleId: Int64?
    public var environment: SimulatedEnvironment
    public var gracePeriod: GracePeriodSetting
    public var graceEligibility: GraceEligibility
    /// Delay before family members receive a new shared purchase (default one hour; see `Family/`).
    public var familyDelay: CalendarDuration
    public var storefront: Storefront
    /// `originalPlatform` of every customer's `AppTransaction` unless the customer has their own (`customers:`);
    /// default `iOS` [assumed: a default only; Apple sends the platform of the customer's first download].
    public var originalPlatform: PurchasePlatform = .iOS
    /// `versionExternalIdentifier` of the `AppTransaction` (Apple: "the version external identifier of the app",
    /// StoreKit `appVersionID`); `nil` leaves it out.
    public var versionExternalIdentifier: Int64? = nil

    public init(
        bundleId: String, bundleVersion: String = "1.0", appAppleId: Int64? = nil,
        environment: SimulatedEnvironment = .localTesting, gracePeriod: GracePeriodSetting = .off,
        graceEligibility: GraceEligibility = .allRenewals, familyDelay: CalendarDuration = .hours(1),
        storefront: Storefront = .unitedStates
    ) {
        self.bundleId = bundleId
        self.bundleVersion = bundleVersion
        self.appAppleId = appAppleId
        self.environment = environment
        self.gracePeriod = gracePeriod
        self.graceEligibility = graceEligibility
        self.familyDelay = familyDelay
        self.storefront = storefront
    }

    /// The same configuration with its strings in storage of its own (``String/inOwnStorage``): the bundle id is
    /// written into every payload, by every part of a run in parts.
    package func inOwnStorage() -> AppConfiguration {
        var copy = self
        copy.bundleId = bundleId.inOwnStorage
        copy.bundleVersion = bundleVersion.inOwnStorage
        copy.storefront = Storefront(countryCode: storefront.countryCode.inOwnStorage, id: storefront.id.inOwnStorage)
        return copy
    }
}
