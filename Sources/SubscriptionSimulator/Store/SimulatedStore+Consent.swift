extension SimulatedStore {
    /// **app-transaction-of-a-customer**: every customer the store knows has downloaded the app: their
    /// `AppTransaction` has their `appTransactionId`, `originalPurchaseDate` the `purchaseDate` of their first
    /// transaction, else the store's start [assumed: the store does not model the download itself],
    /// `originalPlatform` the app's (``AppConfiguration/originalPlatform``) and `receiptCreationDate` now. `nil` for a
    /// customer the store has never met.
    public func appTransaction(of customer: String) -> AppTransactionRecord? {
        guard let appTransactionId = appTransactionId(of: customer) else { return nil }
        let first = transactions.first { $0.customer == customer }
        return AppTransactionRecord(
            appTransactionId: appTransactionId, originalPurchaseDate: first?.purchaseDate ?? start,
            originalPlatform: app.originalPlatform, receiptCreationDate: now)
    }

    /// **rescind-consent**: a parent or guardian withdraws consent for the customer, an account under the Declared Age
    /// Range rules (App Store Server Notifications 2.19, 2025-11-04). The App Store sends `RESCIND_CONSENT`, no
    /// subtype, to the customer it concerns, with `appData` (`appAppleId`, absent in `Sandbox`; `bundleId`;
    /// `environment`; `signedAppTransactionInfo`, the customer's `AppTransaction`) instead of `data` (Apple's
    /// `appData` page: "present in the payload when the notificationType is RESCIND_CONSENT"; library model
    /// `AppData`). Nothing else changes [assumed: Apple documents no change to purchases; the app stops launching on
    /// the device, which the store does not model]. Family members receive nothing [assumed: the notification is
    /// about one account's app transaction; Apple's pages name no family rule, and `FamilyRules.memberNotification`
    /// sends members nothing for it]. A customer the store has not met yet is registered first, as any action does.
    public mutating func rescindConsent(for customer: String) {
        let position = register(customer)
        guard let appTransaction = appTransaction(of: customer) else { return }
        directory.needsRefresh(ofCustomerAt: position)
        var notification = SentNotification(
            recipient: customer, instant: now, type: .rescindConsent, subtype: nil,
            uuid: nextNotificationUUID(forCustomerAt: position), transaction: nil, renewal: nil, status: nil)
        notification.appTransaction = appTransaction
        emissions.append(notification, group: directory.records[position].eventGroup)
    }
}
