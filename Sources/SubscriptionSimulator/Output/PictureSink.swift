/// The `svg` format's sink (``TimelinePicture``): takes the run as it goes, keeping only what the picture draws
/// (``TimelinePicture/Caps``), and writes the whole SVG document in ``finish()``, drawn up to the scenario's `until`.
/// For `simctl run --format svg` it writes to standard output; beside a fixture folder (`--out DIR`) it is
/// `DIR/timeline.svg` (``FixtureSink``'s files, ``pictureFileName``).
public struct PictureSink: RunSink {
    /// The picture's name in a fixture folder.
    public static let pictureFileName = "timeline.svg"

    let scenario: Scenario
    var picture: TimelinePicture
    let write: ([UInt8]) -> Void

    public init(scenario: Scenario, write: @escaping ([UInt8]) -> Void) {
        self.scenario = scenario
        picture = TimelinePicture(scenario: scenario)
        self.write = write
    }

    /// The picture of the customers and window `view` chooses (`--customers`, `--from`, `--to`, `--axis`).
    package init(scenario: Scenario, view: PictureView, write: @escaping ([UInt8]) -> Void) {
        self.scenario = scenario
        picture = TimelinePicture(scenario: scenario, view: view)
        self.write = write
    }

    public mutating func receive(
        _ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>
    ) {
        picture.add(notifications, changes)
    }

    /// Writes the document. Call once, after the run.
    public mutating func finish() { write(document()) }

    /// The document of what the sink received so far.
    public func document() -> [UInt8] { Array(picture.svg(until: scenario.until).utf8) }
}
