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
