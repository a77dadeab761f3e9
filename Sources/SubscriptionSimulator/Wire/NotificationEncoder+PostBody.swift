extension NotificationEncoder {
    /// The notification's POST body alone (``EncodedNotification/postBody``, the same bytes, written by the same
    /// writer as the `jsonl` format), without building the decoded views.
    public func postBody(of n: SentNotification) -> String {
        var buffers = Buffers()
        var body: [UInt8] = []
        appendPostBody(of: n, signing: JWSSigning(signer), to: &body, buffers: &buffers)
        return String(decoding: body, as: UTF8.self)
    }
}
