/// The `jsonl` format: exactly one App Store POST body (`{"signedPayload":"..."}`) per line, in virtual-time order,
/// signed by `signer`, or by the environment's default signer when it is `nil`. The one writer of the format: a
/// streamed run (``ScenarioRunner/stream(_:retention:into:)``) feeds it as the run goes, ``RunOutput/jsonl(_:signer:)``
/// hands it a finished run at once.
///
/// Like every sink of this folder, it hands its bytes to `write` in chunks of about 64 KB and keeps nothing that
/// grows with the run, except what a format needs at its end, kept on disk in a ``Spool`` (the timeline's rows, a
/// fixture folder's manifest entries); it writes the same bytes however its input is grouped.
public struct JSONLSink: RunSink {
    let encoder: NotificationEncoder
    let signing: JWSSigning
    var buffers = NotificationEncoder.Buffers()
    var out: ChunkedWriter
    /// The second encoding thread, when there is one (``JSONLEncoding``).
    let parallel: JSONLEncoding?

    /// Signed by `signer`, or by the environment's default signer when it is `nil`.
    public init(app: AppConfiguration, signer: (any PayloadSigner)? = nil, write: @escaping ([UInt8]) -> Void) {
        self.init(app: app, signer: signer, parallel: false, write: write)
    }

    /// With `parallel`, groups of notifications are encoded on two threads (``JSONLEncoding``): the same bytes.
    init(app: AppConfiguration, signer: (any PayloadSigner)?, parallel: Bool, write: @escaping ([UInt8]) -> Void) {
        encoder = NotificationEncoder(app: app, signer: signer)
        signing = JWSSigning(encoder.signer)
        out = ChunkedWriter(write)
        self.parallel = parallel ? JSONLEncoding(encoder: encoder, signing: signing) : nil
    }

    public mutating func receive(
        _ notifications: ArraySlice<SentNotification>, _ changes: ArraySlice<EntitlementChange>
    ) {
        if let parallel, notifications.count >= 2 * JSONLEncoding.block {
            out.flush()  // what the buffer holds comes first
            parallel.encode(notifications, buffers: &buffers) { out.write($0) }
            return
        }
        // Each notification read in place, not copied out of the slice (a copy retains every string it holds).
        notifications.withUnsafeBufferPointer { group in
            for index in group.indices {
                Self.appendLine(
                    of: group[index], encoder: encoder, signing: signing, to: &out.buffer, buffers: &buffers)
                out.flushIfFull()
            }
        }
    }

    /// Appends the line of `n` (its POST body and a newline) to `bytes`: the one statement of the format's line,
    /// for this sink, its second thread (``JSONLEncoding``) and a run in parts (`Run/Parts/`).
    static func appendLine(
        of n: SentNotification, encoder: NotificationEncoder, signing: JWSSigning, to bytes: inout [UInt8],
        buffers: inout NotificationEncoder.Buffers
    ) {
        encoder.appendPostBody(of: n, signing: signing, to: &bytes, buffers: &buffers)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Writes what is left.
    public mutating func finish() { out.flush() }
}
