import SubscriptionSimulator

/// `simctl run FILE --format svg` (or `--out DIR`) `--customers NAME,... --from T --to T --axis dates|offsets`: what
/// the picture shows (``PictureView``). The form is checked while parsing; names and the window once the scenario is
/// read (``resolve(_:)``).
package struct PictureOptions: Equatable, Sendable {
    package var customers: String?
    package var from: String?
    package var to: String?
    package var axis: String?

    package init() {}

    package static let help = """
          --customers LIST    the picture's lanes (with --format svg or --out): customer names or patterns
                              (* any text, ? one character) separated by commas; default: everyone, the
                              most eventful first, identical lanes collapsed, with a phase-count strip
          --from T, --to T    the picture's window: offsets from `start` (0, 1h, 10d, P1M) or ISO instants;
                              default: the start to the end of the run
          --axis dates|offsets
                              dated ticks on calendar boundaries (default) or offsets from the start written
                              as `at:` writes them
        """

    /// Options that apply to the picture.
    static let names = declarations.map(\.name)

    /// The first picture option given, in ``names``' order; nil: none.
    var firstGiven: String? {
        zip(Self.names, [customers, from, to, axis]).first { $0.1 != nil }?.0
    }

    /// The view, checked against the scenario's customers and start; a usage error names the option.
    func resolve(_ scenario: Scenario) -> Result<PictureView, UsageError> {
        switch PictureView.parse(
            customers: customers, from: from, to: to, axis: axis, start: scenario.start, known: scenario.customers)
        {
        case .success(let view): return .success(view)
        case .failure(let error): return .failure(UsageError(message: error.description, topic: "run"))
        }
    }
}
