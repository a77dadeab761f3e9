/// The `decoded` format: one JSON object per line: the recipient (absent for a notification about the app), the
/// instant (ms and ISO) and the payload with its nested JWS decoded (``NotificationEncoder/decodedView(of:app:)``).
/// Nothing is signed. The one writer of the format, for streamed runs and for ``RunOutput/decoded(_:)``.
public struct DecodedSink: RunSink {
    let app: AppConfiguration
    var out: ChunkedWriter

    public init(app: AppConfiguration, write: @escaping ([UInt8]) -> Void) {
        self.app = app
        out = ChunkedWriter(write)
    }

    public mutating func receive(
        _ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>
    ) {
        for n in notifications {
            Self.appendLine(of: n, app: app, to: &out.buffer)
            out.flushIfFull()
        }
    }

    /// Appends the line of `n` (with its newline) to `bytes`.
    static func appendLine(of n: SentNotification, app: AppConfiguration, to bytes: inout [UInt8]) {
        // Written straight to bytes, members in canonical order (the decoded view needs no signature).
        var line = CanonicalJSONBytes()
        swap(&line.bytes, &bytes)
        line.object { o in
            o.member("at", n.instant.description)
            o.member("instant", n.instant.millisecondsSince1970)
            o.member("payload") { NotificationEncoder.describeDecoded(of: n, app: app, into: &$0) }
            o.member("recipient", n.recipient)  // absent for a notification about the app
        }
        swap(&line.bytes, &bytes)
        bytes.append(UInt8(ascii: "\n"))
    }

    public mutating func finish() { out.flush() }
}
