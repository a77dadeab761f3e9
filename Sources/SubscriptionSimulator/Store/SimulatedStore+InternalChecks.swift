/// The parts' invariants checked as the store runs, in the manner of swift-collections' `_checkInvariants()`: in debug
/// builds (`DEBUG`) and in builds made with `-D SIMCTL_INTERNAL_CHECKS` (the fuzz targets, `Tests/Fuzz/build.sh`),
/// every part's `isConsistent` must hold after each ``advance(to:)`` and each action of the scenario vocabulary
/// (``TimelineDriver/perform(_:on:)``: scenario runs, `serve`'s control API, `check`); a release build checks nothing.
extension SimulatedStore {
    /// Each part that states invariants, by name, and whether they hold now (each part's file documents its own).
    var partChecks: [(part: String, holds: Bool)] {
        [
            ("CustomerDirectory", directory.isConsistent), ("SubscriptionBook", subscriptionBook.isConsistent),
            ("FamilyBook", familyBook.isConsistent), ("TransactionLedger", ledger.isConsistent),
            ("EmissionLog", emissions.isConsistent), ("PriceIncreaseSchedule", priceIncreaseSchedule.isConsistent),
            ("ServerRequestRecords", serverRequests.isConsistent),
            ("CommitmentPriceLocks", commitmentPriceLocks.isConsistent),
        ]
    }

    /// Whether the invariants of every part that states them hold.
    var partsAreConsistent: Bool { partChecks.allSatisfy(\.holds) }

    /// Stops with the part whose invariants broke (debug and internal-check builds only).
    ///
    /// Each check reads the whole store, so a long debug run would grow quadratic: a store holding more than
    /// ``internalCheckFullSize`` records is checked after every (size / 256)-th step instead (still hundreds of times
    /// over a run, and always after its last steps' growth), which keeps the checks linear in the run.
    @inline(__always)
    mutating func checkParts() {
        #if DEBUG || SIMCTL_INTERNAL_CHECKS
            internalCheckSteps &+= 1
            let size = directory.names.count + ledger.nextIndex + emissions.heldCount
            guard size <= Self.internalCheckFullSize || internalCheckSteps % (size / 256) == 0 else { return }
            for check in partChecks {
                precondition(check.holds, "\(check.part) breaks its invariants at \(now) (seed \(seed))")
            }
        #endif
    }

    /// The size (customers, transactions and records held) up to which ``checkParts()`` checks after every step.
    static var internalCheckFullSize: Int { 4096 }
}
