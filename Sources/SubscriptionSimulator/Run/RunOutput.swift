/// A finished run in each output format. Each format has one writer, the sink a streamed run uses
/// (``ScenarioRunner/stream(_:retention:into:)``), here handed the whole run at once: the same bytes either way. All
/// deterministic: the same run gives the same bytes.
public enum RunOutput {
    /// `jsonl` (``JSONLSink``): exactly one App Store POST body (`{"signedPayload":"..."}`) per line, in virtual-time
    /// order. Signed by `signer`, or by the environment's default signer when it is `nil`.
    public static func jsonl(_ run: ScenarioRun, signer: (any PayloadSigner)? = nil) -> String {
        text { write in
            var sink = JSONLSink(app: run.store.app, signer: signer, write: write)
            sink.receive(run.store.notifications[...], run.store.entitlementChanges[...])
            sink.finish()
        }
    }

    /// `decoded` (``DecodedSink``): one JSON object per line: the recipient, the instant (ms and ISO) and the payload
    /// with its nested JWS decoded.
    public static func decoded(_ run: ScenarioRun) -> String {
        text { write in
            var sink = DecodedSink(app: run.store.app, write: write)
            sink.receive(run.store.notifications[...], run.store.entitlementChanges[...])
            sink.finish()
        }
    }

    /// `timeline` (``TimelineSink``): a table for people: virtual time, offset from the start, customer, notification
    /// type/subtype, status and key fields, with a line wherever a customer's access changes.
    public static func timeline(_ run: ScenarioRun) -> String {
        text { write in
            var sink = TimelineSink(scenario: run.scenario, write: write)
            sink.receive(run.store.notifications[...], run.store.entitlementChanges[...])
            sink.finish()
        }
    }

    /// `svg` (``PictureSink``): the run as one SVG picture.
    public static func svg(_ run: ScenarioRun) -> String {
        text { write in
            var sink = PictureSink(scenario: run.scenario, write: write)
            sink.receive(run.store.notifications[...], run.store.entitlementChanges[...])
            sink.finish()
        }
    }

    /// What `body` writes, through the `write` closure it is given (which must not outlive the call), as text.
    static func text(_ body: (_ write: @escaping ([UInt8]) -> Void) -> Void) -> String {
        var bytes: [UInt8] = []
        withoutActuallyEscaping({ (chunk: [UInt8]) in bytes.append(contentsOf: chunk) }, do: body)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `+1h`, `+40d`, `+31d 2h 30m`: the time from `start` in days, hours, minutes and seconds.
    public static func offset(from start: Instant, to instant: Instant) -> String {
        var bytes: [UInt8] = []
        TimelineSink.appendOffset(from: start, to: instant, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The fixture folder's files (``FixtureSink``), in the order written: `NNNN.json` (one POST body each, numbered
    /// from 0001 in virtual-time order), then `manifest.json` listing each file's recipient, instant, type and
    /// subtype. Signed by `signer`, or by the environment's default signer when it is `nil`.
    public static func fixtureFiles(_ run: ScenarioRun, signer: (any PayloadSigner)? = nil) -> [(
        name: String, contents: String
    )] {
        let folder = FixtureFilesInMemory()
        var sink = FixtureSink(scenario: run.scenario, app: run.store.app, signer: signer, destination: folder)
        sink.receive(run.store.notifications[...], run.store.entitlementChanges[...])
        sink.finish()
        return folder.files.map { ($0.name, String(decoding: $0.bytes, as: UTF8.self)) }
    }
}
