import SubscriptionSimulator

/// The `TEST` notification Request a Test Notification sends (reference §6.3): `notificationType` `TEST`, no
/// subtype, `data` = `{bundleId, environment, appAppleId}` (no `appAppleId` in the sandbox, as for every
/// notification), `version` `2.0`, `signedDate` the store's clock. Its `notificationUUID` comes from the seed and the
/// request's number, so the same requests give the same bytes.
///
/// Kept apart from the store: a TEST notification concerns no customer and changes no subscription, so the store's
/// notification list does not hold it; the server keeps it beside the store's notifications for the history and
/// the delivery.
enum TestNotificationWire {
    static func make(
        app: AppConfiguration, at instant: Instant, seed: UInt64, number: Int, signer: any PayloadSigner
    ) -> (item: DeliveryItem, signedPayload: String) {
        var random = RandomSource(seed: seed ^ 0x7465_7374_6e6f_7469 &+ UInt64(number))  // "testnoti"
        let uuid = NotificationUUID(
            high: (random.next() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000,
            low: (random.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000)
        var data: [String: JSONValue] = [
            "bundleId": .string(app.bundleId), "environment": .string(app.environment.rawValue),
        ]
        if app.environment != .sandbox, let id = app.appAppleId { data["appAppleId"] = .integer(id) }
        let payload: JSONValue = .object([
            "notificationType": .string(NotificationType.test.rawValue),
            "notificationUUID": .string(uuid.description),
            "data": .object(data),
            "version": .string("2.0"),
            "signedDate": .integer(instant.millisecondsSince1970),
        ])
        let jws = JWS.compact(payload: payload, signer: signer)
        let body = CanonicalJSON.string(.object(["signedPayload": .string(jws)]))
        let item = DeliveryItem(
            notificationUUID: uuid.description, recipient: "", instant: instant,
            notificationType: NotificationType.test.rawValue, subtype: nil, body: body)
        return (item, jws)
    }
}
