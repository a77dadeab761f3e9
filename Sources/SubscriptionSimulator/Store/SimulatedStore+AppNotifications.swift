/// Notifications about the app rather than a customer (rule ``SentNotification/isAboutTheApp``).
extension SimulatedStore {
    /// Request a Test Notification (`POST /inApps/v1/notifications/test`): the App Store sends a `TEST` notification
    /// now, with no subtype and a `data` holding only `appAppleId` (absent in `Sandbox`), `bundleId` and
    /// `environment` (reference §2.3 table, §6.3; S-NT; Apple's library test data). It concerns no customer, changes
    /// no subscription and is always sent in Version 2 format. Returns the notification and the token Apple returns.
    @discardableResult
    public mutating func requestTestNotification() -> TestNotificationRequest {
        let notification = sendAboutTheApp(.test, nil)
        return TestNotificationRequest(
            notification: notification, testNotificationToken: Self.testNotificationToken(of: notification))
    }

    /// The `testNotificationToken` of a `TEST` notification (rule test-notification-token,
    /// ``EmissionLog/testNotificationToken(of:)``).
    public static func testNotificationToken(of notification: SentNotification) -> String {
        EmissionLog.testNotificationToken(of: notification)
    }

    /// The `TEST` notification a `testNotificationToken` names, or nil when no such test was requested (Get Test
    /// Notification Status then answers 404 `TestNotificationNotFoundError`, reference §6.3).
    public func testNotification(token: String) -> SentNotification? {
        emissions.testNotification(token: token)
    }
}
