/// Notifications read back from what `simctl run` wrote (`--format jsonl` lines, `--out` fixture files), for
/// `simctl replay` and `simctl trigger`: the same bodies, with what the delivery log says about each taken from the
/// signed payload itself (`notificationType`, `subtype`, `notificationUUID`, `signedDate`).
extension DeliveryItem {
    /// The item of one POST body (`{"signedPayload":"<JWS>"}`), sent again byte for byte. `recipient`: the
    /// customer it is about, when the fixture folder's manifest says so (a jsonl stream does not).
    public init(replaying body: String, recipient: String? = nil) throws(ReplayError) {
        let jws: String
        switch try? CanonicalJSON.parse(body) {
        case .object(let members)?:
            guard members.count == 1, let payload = members["signedPayload"]?.stringValue else {
                throw ReplayError(message: "expected an App Store POST body {\"signedPayload\":\"<JWS>\"}")
            }
            jws = payload
        default:
            throw ReplayError(
                message: "expected an App Store POST body {\"signedPayload\":\"<JWS>\"}, found no JSON object")
        }
        let payload: JSONValue
        do throws(JWSDecodingError) { payload = try JWS.decodePayload(jws) } catch {
            throw ReplayError(message: "the signedPayload is not a JWS: \(error)")
        }
        guard let type = payload.value(at: "notificationType")?.stringValue,
            let uuid = payload.value(at: "notificationUUID")?.stringValue,
            let signed = payload.value(at: "signedDate")?.integerValue
        else {
            throw ReplayError(
                message: "the signedPayload has no notificationType, notificationUUID or signedDate")
        }
        self.init(
            notificationUUID: uuid, recipient: recipient, instant: Instant(millisecondsSince1970: signed),
            notificationType: type, subtype: payload.value(at: "subtype")?.stringValue, body: body)
    }
}

/// A body that cannot be replayed: what was expected and what was found (the caller adds the file and line).
public struct ReplayError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
