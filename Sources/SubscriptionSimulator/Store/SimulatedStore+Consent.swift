extension SimulatedStore {
    /// The customer's `AppTransaction` now (rule app-transaction-of-a-customer,
    /// ``AppTransactionRecord/init(of:directory:transactions:platform:start:at:)``); `nil` for a customer the store has
    /// never met.
    public func appTransaction(of customer: String) -> AppTransactionRecord? {
        AppTransactionRecord(
            of: customer, directory: directory, transactions: transactions, platform: app.originalPlatform,
            start: start, at: now)
    }

    /// A parent or guardian withdraws consent for the customer: `RESCIND_CONSENT` with the customer's
    /// `AppTransaction`, nothing else changes (rule rescind-consent, in
    /// ``EmissionLog/sendRescindConsent(to:at:appTransaction:directory:at:)``). A customer the store has not met yet is
    /// registered first, as any action does.
    public mutating func rescindConsent(for customer: String) {
        let position = register(customer)
        guard let appTransaction = appTransaction(of: customer) else { return }
        emissions.sendRescindConsent(
            to: customer, at: position, appTransaction: appTransaction, directory: &directory, at: now)
    }
}
