/// How an increase with a start date enters the schedule (issue 44, item 1): the schedule's rules, in order, before
/// the store facade schedules the start event and the notices.
extension PriceIncreaseSchedule {
    /// Schedules an increase at `target` to `newPrice`, set at `now`, starting at `effective`, and returns its number.
    /// Refused by rule one-scheduled-price-change (``refuseSecondScheduledChange(_:)``), rule
    /// price-increase-notice-lead (``checkNoticeLead(of:effective:at:)``) and when consent cannot be worked out
    /// (``consentNeeded(_:_:_:effective:)``: `stated` when given, else rules price-increase-consent-threshold and
    /// price-increase-once-a-year); an increase without consent is remembered at `effective` for rule
    /// price-increase-once-a-year.
    mutating func schedule(
        _ target: PriceTarget, to newPrice: Price, effective: Instant, consentRequired stated: Bool?, at now: Instant
    ) throws(StoreError) -> Int {
        try refuseSecondScheduledChange(target)
        try Self.checkNoticeLead(of: target.productId, effective: effective, at: now)
        let needsConsent = try consentNeeded(stated, target, newPrice, effective: effective)
        if !needsConsent { noteWithoutConsent(target, at: effective) }
        return add(
            ScheduledPriceIncrease(
                productId: target.productId, storefront: target.storefront, oldPrice: target.oldPrice,
                newPrice: newPrice, scheduledAt: now, effective: effective, needsConsent: needsConsent,
                plan: target.plan))
    }
}
