/// The parts' invariants checked as the store runs, in the manner of swift-collections' `_checkInvariants()`: in debug
/// builds (`DEBUG`) and in builds made with `-D SIMCTL_INTERNAL_CHECKS` (the fuzz targets, `Tests/Fuzz/build.sh`),
/// every part's `isConsistent` must hold after each ``advance(to:)`` and each action of the scenario vocabulary
/// (``TimelineDriver/perform(_:on:)``: scenario runs, `serve`'s control API, `check`); a release build checks nothing.
extension SimulatedStore {
    /// Whether the invariants of every part that states them hold (each part's file documents its own).
    var partsAreConsistent: Bool {
        directory.isConsistent && subscriptionBook.isConsistent && familyBook.isConsistent && ledger.isConsistent
            && emissions.isConsistent && priceIncreaseSchedule.isConsistent && serverRequests.isConsistent
            && commitmentPriceLocks.isConsistent
    }

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
            precondition(directory.isConsistent, "CustomerDirectory breaks its invariants at \(now) (seed \(seed))")
            precondition(
                subscriptionBook.isConsistent, "SubscriptionBook breaks its invariants at \(now) (seed \(seed))")
            precondition(familyBook.isConsistent, "FamilyBook breaks its invariants at \(now) (seed \(seed))")
            precondition(ledger.isConsistent, "TransactionLedger breaks its invariants at \(now) (seed \(seed))")
            precondition(emissions.isConsistent, "EmissionLog breaks its invariants at \(now) (seed \(seed))")
            precondition(
                priceIncreaseSchedule.isConsistent,
                "PriceIncreaseSchedule breaks its invariants at \(now) (seed \(seed))")
            precondition(
                serverRequests.isConsistent, "ServerRequestRecords breaks its invariants at \(now) (seed \(seed))")
            precondition(
                commitmentPriceLocks.isConsistent,
                "CommitmentPriceLocks breaks its invariants at \(now) (seed \(seed))")
        #endif
    }

    /// The size (customers, transactions and records held) up to which ``checkParts()`` checks after every step.
    static var internalCheckFullSize: Int { 4096 }
}
