/// Sending: the notifications the store emits, each built here with the recipient's next UUID (rule
/// ids-per-customer) and recorded with the recipient's event group (rule order-key).
extension EmissionLog {
    /// Records a notification to the customer at `position` at `now` and marks the customer for an entitlement
    /// refresh. Rule ids-per-customer: the UUID belongs to the recipient. The record and renewal info are consumed:
    /// the notification takes them without copying (each copy retains their strings). Always inlined into
    /// ``SimulatedStore/send(_:_:to:at:transaction:renewal:status:restored:)``, as it was written there (issue 27).
    @inline(__always)
    mutating func send(
        _ type: NotificationType, _ subtype: NotificationSubtype?, to recipient: String, at position: Int,
        directory: inout CustomerDirectory, transaction: consuming TransactionRecord,
        renewal: consuming RenewalSnapshot?, status: SubscriptionPhase?, restored: Bool, at now: Instant
    ) {
        directory.needsRefresh(ofCustomerAt: position)
        append(
            SentNotification(
                recipient: recipient, instant: now, type: type, subtype: subtype,
                uuid: directory.nextNotificationUUID(ofCustomerAt: position), transaction: transaction,
                renewal: renewal, status: status),
            group: directory.records[position].eventGroup, restored: restored)
    }

    /// Records a notification about the app itself (rule ``SentNotification/isAboutTheApp``): no customer, no
    /// transaction, event group 0; `summary` for `RENEWAL_EXTENSION` / `SUMMARY`. Returns it.
    mutating func sendAboutTheApp(
        _ type: NotificationType, _ subtype: NotificationSubtype?, summary: RenewalExtensionSummary?,
        uuid: NotificationUUID, at now: Instant
    ) -> SentNotification {
        let notification = SentNotification(
            recipient: nil, instant: now, type: type, subtype: subtype, uuid: uuid, transaction: nil, renewal: nil,
            status: nil, summary: summary)
        append(notification, group: 0)
        return notification
    }

    /// **rescind-consent**: a parent or guardian withdraws consent for the customer, an account under the Declared Age
    /// Range rules (App Store Server Notifications 2.19, 2025-11-04). The App Store sends `RESCIND_CONSENT`, no
    /// subtype, to the customer it concerns, with `appData` (`appAppleId`, absent in `Sandbox`; `bundleId`;
    /// `environment`; `signedAppTransactionInfo`, the customer's `AppTransaction`) instead of `data` (Apple's
    /// `appData` page: "present in the payload when the notificationType is RESCIND_CONSENT"; library model
    /// `AppData`). Nothing else changes [assumed: Apple documents no change to purchases; the app stops launching on
    /// the device, which the store does not model]. Family members receive nothing [assumed: the notification is
    /// about one account's app transaction; Apple's pages name no family rule, and `FamilyRules.memberNotification`
    /// sends members nothing for it]. Marks the customer for an entitlement refresh, as every notification does.
    mutating func sendRescindConsent(
        to customer: String, at position: Int, appTransaction: AppTransactionRecord,
        directory: inout CustomerDirectory, at now: Instant
    ) {
        directory.needsRefresh(ofCustomerAt: position)
        var notification = SentNotification(
            recipient: customer, instant: now, type: .rescindConsent, subtype: nil,
            uuid: directory.nextNotificationUUID(ofCustomerAt: position), transaction: nil, renewal: nil, status: nil)
        notification.appTransaction = appTransaction
        append(notification, group: directory.records[position].eventGroup)
    }

    /// **test-notification-token**: `testNotificationToken` is a string Apple documents only as a unique identifier
    /// of the test (S-API `testNotificationToken`). The simulator writes the notification's `notificationUUID`, an
    /// underscore and its `signedDate` in milliseconds [assumed: Apple's library test data use a bare UUID; tokens
    /// seen from the App Store have this UUID-underscore-timestamp form], so the token finds its notification again.
    static func testNotificationToken(of notification: SentNotification) -> String {
        "\(notification.notificationUUID)_\(notification.instant.millisecondsSince1970)"
    }

    /// The last `TEST` notification whose token (rule test-notification-token) is `token`, if any.
    func testNotification(token: String) -> SentNotification? {
        notifications.last { $0.type == .test && Self.testNotificationToken(of: $0) == token }
    }
}
