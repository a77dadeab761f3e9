/// A scenario file, decoded and checked: everything needed to run it and judge the run.
public struct Scenario: Hashable, Sendable {
    public var name: String
    public var file: String
    public var start: Instant
    public var seed: UInt64
    public var app: AppConfiguration
    public var catalog: Catalog
    public var family: FamilySpec?
    public var timeline: [TimelineEntry]
    public var until: Instant
    public var expectations: [Expectation]
    /// Every customer the scenario knows: the family's people, then anyone a timeline entry names, in order.
    public var customers: [String]
    /// Customers given a storefront of their own (`customers:`); the others are in `app.storefront`.
    public var storefronts: [String: Storefront] = [:]
    /// Where the run's end is given (`until:`, else `start:`): errors after the last timeline entry, such as a run
    /// limit reached on the way to `until`, are reported there.
    public var endLocation = SourceLocation(line: 1, column: 1)
    /// The `delivery:` block: delivery faults written down as data, which `simctl run --deliver` makes on top of its
    /// chaos options (docs/scenario-format.md, "`delivery`"). Empty without the block.
    public var deliveryFaults: [DeliveryFault] = []
    /// `epoch:`: the store's identity epoch (rule ids-change-with-the-epoch, `Engine/IdentifierSource.swift`); 0, the
    /// default, gives the usual ids and UUIDs. `simctl check` writes the epoch its counterexample ran at, so that
    /// `simctl run` and `check --replay` of the file send exactly the notifications it found.
    public var epoch: UInt32 = 0
    /// What the file says in a deprecated spelling (an action's old name), in file order: it still runs as written;
    /// `simctl` prints each warning on standard error.
    public var warnings: [ScenarioWarning] = []
}

public struct FamilySpec: Hashable, Sendable {
    public var organizer: String
    public var members: [String]
    /// The `family:` key's value, where an error creating the family is reported.
    public var location = SourceLocation(line: 1, column: 1)
}

/// One timeline entry: an action at an instant.
public struct TimelineEntry: Hashable, Sendable {
    public var at: Instant
    public var action: ScenarioAction
    public var location: SourceLocation
    /// Set by the decoder when the action was written in a deprecated spelling (an alias in the action table,
    /// ``ScenarioActionSpec/deprecatedKeys``): what to write instead. Not part of the entry's value (`==`).
    package var deprecation: String? = nil

    public static func == (lhs: TimelineEntry, rhs: TimelineEntry) -> Bool {
        lhs.at == rhs.at && lhs.action == rhs.action && lhs.location == rhs.location
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(at)
        hasher.combine(action)
        hasher.combine(location)
    }
}

/// Something in a scenario file that still works but should be written otherwise (a deprecated spelling), with its
/// place: `FILE:LINE:COLUMN: warning: MESSAGE`, the form compilers use.
public struct ScenarioWarning: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var location: SourceLocation
    public var message: String

    public init(file: String, location: SourceLocation, message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    public var description: String { "\(file):\(location.line):\(location.column): warning: \(message)" }
}

/// A check on the run.
public enum Expectation: Hashable, Sendable {
    /// Exact product sets per customer at an instant.
    case entitled(at: Instant, products: [String: [String]], location: SourceLocation)
    /// Subscription status codes (1–5) per customer and product at an instant.
    case status(at: Instant, codes: [String: [String: Int]], location: SourceLocation)
    /// The notifications one customer receives: all of them in order (`exactly`), or an ordered subsequence
    /// (`includes`). `customer` nil: the notifications about the app (`TEST`, `RENEWAL_EXTENSION` / `SUMMARY`).
    case notifications(
        customer: String?, mode: NotificationMatchMode, items: [ExpectedNotification], location: SourceLocation)
}

public enum NotificationMatchMode: String, Hashable, Sendable {
    case exactly
    case includes
}

/// One expected notification. An item without a subtype matches only a notification without one.
public struct ExpectedNotification: Hashable, Sendable {
    public var at: Instant
    public var type: NotificationType
    public var subtype: NotificationSubtype?
    /// Paths into the decoded payload (`data.`, `transaction.`, `renewal.`) and the expected value as written.
    public var fields: [ExpectedField]
    public var location: SourceLocation
}

public struct ExpectedField: Hashable, Sendable {
    public var path: String
    public var expected: String
    public var location: SourceLocation
}

/// An error in a scenario file, with the place it was found.
public struct ScenarioError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var location: SourceLocation
    public var message: String
    /// Set when the error is in the value of a command-line option (such as `--until`), not in the file: the
    /// command line reports it as a usage error. `location` is then 0:0.
    public var commandLineOption: String?

    public init(file: String, location: SourceLocation, message: String) {
        self.file = file
        self.location = location
        // Text quoted from the input may hold control characters (a NUL in a key): shown escaped, never raw.
        self.message = SourceText.escapingControlCharacters(message)
    }

    /// `FILE:LINE:COLUMN`: where the error is (a stopped timeline's last line names it).
    public var place: String { "\(file):\(location.line):\(location.column)" }

    /// `FILE:LINE:COLUMN: error: MESSAGE`, the form compilers use, so editors can jump to it (a merge of parts reads
    /// the place back from it: `PartFile.location(ofStop:file:)`).
    public var description: String { "\(place): error: \(message)" }
}
