/// The simulated App Store: a value type, so a copy is a what-if branch.
///
/// Drive it like a test: act at `now` (purchase, cancel, fail or fix billing, refund, ...), advance the virtual
/// clock, then read notifications, transactions, statuses and entitlements. Nothing reads the wall clock; the same
/// calls with the same seed give the same ids, UUIDs and payloads.
public struct SimulatedStore: Sendable {
    public internal(set) var app: AppConfiguration
    public internal(set) var catalog: Catalog
    public let seed: UInt64
    public let start: Instant

    var scheduler: EventScheduler<StoreEvent>
    var ids: IdentifierSource
    /// The catalogue's sale status (``removeFromSale(_:)``).
    private(set) var saleStatus = SaleStatus()

    // The store's parts, each with its own invariants (its file in `Store/` says which).
    /// Customers, their records, Apple Account fields and pending entitlement refreshes.
    var directory = CustomerDirectory()
    /// Subscription chains and their indices.
    var subscriptionBook = SubscriptionBook()
    /// Family groups, shares and sharing switches.
    var familyBook = FamilyBook()
    /// Transactions, their modification order, non-renewing terms and refund requests.
    var ledger = TransactionLedger()
    /// Notifications, entitlement changes and device-side records emitted, and how much of them is kept.
    var emissions = EmissionLog()
    /// The run limits and what has been counted against them.
    var runLimits = RunLimitMeter()
    /// The store event that stopped ``advance(to:)`` with an error (a run limit, a rule): its instant and event group.
    /// A reader that orders several stores' records by ``OrderKey`` cuts the others' records there.
    package private(set) var stoppingEvent: (instant: Instant, group: UInt32)?
    /// What App Store Server API requests left: app account tokens set, finished transactions, consumption
    /// information, mass extensions (`Store/ServerRequestRecords.swift`).
    var serverRequests = ServerRequestRecords()
    /// Price increases with a start date (`Store/PriceIncreaseSchedule.swift`).
    var priceIncreaseSchedule = PriceIncreaseSchedule()
    /// The monthly price each commitment keeps after the plan's monthly price rose during it
    /// (`Store/CommitmentPriceLocks.swift`).
    var commitmentPriceLocks = CommitmentPriceLocks()
    #if DEBUG || SIMCTL_INTERNAL_CHECKS
        /// Steps (advances and actions) so far, for ``checkParts()``.
        var internalCheckSteps = 0
    #endif

    /// Customers in the order they were first named.
    public var customers: [String] { directory.names }
    /// Every transaction, in creation order.
    public var transactions: TransactionLog { ledger.transactions }
    /// Every notification, in the order sent.
    public var notifications: [SentNotification] { emissions.notifications }
    /// Every change of any customer's entitlements, in order.
    public var entitlementChanges: [EntitlementChange] { emissions.entitlementChanges }
    /// Family groups; a customer is in at most one.
    public var families: [FamilyGroup] { familyBook.families }
    /// What the store keeps of what it has emitted (``StoreRetention``, `Store/SimulatedStore+Retention.swift`).
    public var retention: StoreRetention { emissions.retention }
    /// The ceilings of a run (``RunLimits``); passing one stops ``advance(to:)`` with an error.
    public var limits: RunLimits {
        get { runLimits.limits }
        set { runLimits.limits = newValue }
    }

    /// `epoch`: the same store with new identities (every id and UUID changes; 0 gives a store's usual ones; rule
    /// ids-change-with-the-epoch in `Engine/IdentifierSource.swift`).
    public init(app: AppConfiguration, catalog: Catalog, start: Instant, seed: UInt64 = 0, epoch: UInt32 = 0) {
        self.app = app
        self.catalog = catalog
        self.seed = seed
        self.start = start
        self.scheduler = EventScheduler(start: start)
        self.ids = IdentifierSource(seed: seed, epoch: epoch)
        // Records are large values; growing from empty re-copies them several times in a typical run.
        emissions.reserveCapacity(32)
        ledger.reserveCapacity(32)
    }

    /// The virtual instant: every store event at or before it has run.
    public var now: Instant { scheduler.now }

    // MARK: - Customers

    /// Registers a customer (actions register the customers they name, so this is optional).
    public mutating func addCustomer(_ name: String) {
        register(name)
    }

    /// The customer's position in ``CustomerDirectory/names``, registering them if new.
    @discardableResult
    mutating func register(_ name: String) -> Int {
        directory.register(name, ids: &ids)
    }

    /// Registers a customer whose ids are made from `idPosition` (``CustomerRecord/idPosition``: a partitioned run's
    /// part); customers registered later without one get one at or above `reserving`.
    mutating func addCustomer(_ name: String, idPosition: Int, reserving count: Int) {
        _ = directory.register(name, idPosition: idPosition, ids: &ids)
        directory.reserveIdPositions(below: count)
    }

    /// The event group of the customer at `position` (``CustomerRecord/eventGroup``; 0 for none).
    @inline(__always)
    func eventGroup(ofCustomerAt position: Int?) -> UInt32 {
        position.map { directory.records[$0].eventGroup } ?? 0
    }

    /// Gives each registered customer, by id position, their event group (``CustomerRecord/eventGroup``); with group
    /// 0 (none given), a store not made from a scenario runs one instant's events in the order scheduled.
    mutating func setEventGroups(_ groups: [UInt32]) {
        directory.setEventGroups(groups)
    }

    /// The position in ``CustomerDirectory/names`` of a chain's customer, without hashing the name once the chain
    /// is registered. Always inlined: called from a mutating method, the call copied the whole store and the chain
    /// to pass them (two memcpy of about 1 KB, about 150 instructions per call, once per transition; issue 27).
    @inline(__always)
    func position(of chain: SubscriptionChain) -> Int? {
        chain.customerPosition >= 0 ? chain.customerPosition : directory.positions[chain.customer]
    }

    // MARK: - Identifiers (rule ids-per-customer)

    /// ``CustomerDirectory/nextTransactionIdentifier(ofCustomerAt:ids:)`` (rule ids-per-customer).
    mutating func nextTransactionIdentifier(forCustomerAt position: Int) -> StoreIdentifier {
        directory.nextTransactionIdentifier(ofCustomerAt: position, ids: ids)
    }

    /// The next transaction id of `customer` (registered if new), as text.
    mutating func nextTransactionId(for customer: String) -> String {
        nextTransactionIdentifier(forCustomerAt: register(customer)).text
    }

    /// ``CustomerDirectory/nextWebOrderLineItemIdentifier(ofCustomerAt:ids:)`` (rule ids-per-customer).
    mutating func nextWebOrderLineItemIdentifier(forCustomerAt position: Int) -> StoreIdentifier {
        directory.nextWebOrderLineItemIdentifier(ofCustomerAt: position, ids: ids)
    }

    // MARK: - Clock

    /// Runs every store event due at or before `target` in order, then sets `now` to `target`.
    /// Events exactly at `target` run. Moving backwards is an error.
    ///
    /// A streamed run's store (``EmissionLog/handOverAt``) pauses instead once it holds that many notifications and
    /// entitlement changes not handed on: `now` stays at the instant of the last event run, the events still due
    /// (at that instant or later) wait for the next call. So what one instant sends (a hundred thousand renewals that
    /// coincide) is handed on in groups, never held at once (docs/streaming.md, "The memory bound").
    public mutating func advance(to target: Instant) throws(StoreError) {
        if target < now { throw .scheduling(.clockMovesBackwards(requested: target, now: now)) }
        let pauseAt = emissions.handOverAt
        if pauseAt == .max {
            // Not streamed: no count to check between two events (the hot path of every run and test).
            while let event = scheduler.nextDueEvent(notAfter: target) { try run(event) }
        } else {
            while emissions.heldCount < pauseAt, let event = scheduler.nextDueEvent(notAfter: target) {
                try run(event)
            }
            if emissions.heldCount >= pauseAt, let next = scheduler.nextEventInstant(), next <= target {
                checkParts()
                return
            }
        }
        do throws(SchedulingError) { try scheduler.moveClock(to: target) } catch { throw .scheduling(error) }
        checkParts()
    }

    /// Admits and handles one store event (``advance(to:)``), noting it when it stops the run.
    @inline(__always)
    mutating func run(_ event: ScheduledEvent<StoreEvent>) throws(StoreError) {
        do throws(StoreError) {
            try admit(event)
            try handle(event.payload)
        } catch {
            stoppingEvent = (event.instant, event.group)
            throw error
        }
    }

    /// `advance(to: now + duration)` on the calendar.
    public mutating func advance(by duration: CalendarDuration) throws(StoreError) {
        try advance(to: now.adding(duration))
    }

    // MARK: - Customer and developer actions (all at `now`)

    /// The customer buys a product. Auto-renewable: SUBSCRIBED INITIAL_BUY (first in the group) or RESUBSCRIBE
    /// (after expiry); the introductory offer applies automatically when the customer is eligible (once per group,
    /// reference §5.11, S-INTRO). Other types: ONE_TIME_CHARGE (reference §1.1, S-NT).
    ///
    /// `plan`: the billing plan; `monthly` (a one-year product's plan billed monthly with a 12-month commitment,
    /// `Catalog/CommitmentPlan.swift`) needs the product's `monthlyCommitment` and a storefront that sells it.
    public mutating func purchase(_ productId: String, by customer: String, plan: BillingPlan = .upfront)
        throws(StoreError)
    {
        let product = try requireProduct(productId)
        try saleStatus.checkForSale(productId)
        try requirePrice(of: product, for: customer, plan: plan)
        if plan == .monthly { try requireCommitmentPlan(of: product, for: customer) }
        // After the checks: a refused purchase does not name a new customer.
        addCustomer(customer)
        switch product.type {
        case .autoRenewable:
            try purchaseSubscription(product, by: customer, plan: plan)
        case .consumable, .nonConsumable, .nonRenewing:
            try purchaseOneTime(product, by: customer)
        }
        refreshEntitlements()
    }

    /// Turns auto-renew off: DID_CHANGE_RENEWAL_STATUS / AUTO_RENEW_DISABLED.
    public mutating func cancel(_ productId: String, by customer: String) throws(StoreError) {
        try apply(.autoRenewDisabled, to: try requireChain(productId, customer))
        refreshEntitlements()
    }

    /// Turns auto-renew back on: DID_CHANGE_RENEWAL_STATUS / AUTO_RENEW_ENABLED.
    public mutating func resume(_ productId: String, by customer: String) throws(StoreError) {
        try apply(.autoRenewEnabled, to: try requireChain(productId, customer))
        refreshEntitlements()
    }

    /// From now on, charges to the customer's payment method fail.
    public mutating func failBilling(for customer: String) {
        directory.setPaymentFails(true, ofCustomerAt: register(customer))
    }

    /// The customer's payment method works again; a subscription in grace or billing retry recovers at once
    /// (updating payment information triggers an immediate attempt, reference §5.3, S-CHURN).
    public mutating func fixBilling(for customer: String) throws(StoreError) {
        directory.setPaymentFails(false, ofCustomerAt: register(customer))
        for key in subscriptionBook.purchasedChains(among: chainKeys(of: customer)) {
            try apply(.billingFixed, to: key)
        }
        refreshEntitlements()
    }

    /// Apple grants a full refund of the customer's current transaction of the product; a subscription ends there.
    /// `reason` is `revocationReason`: 0 other, 1 an issue in the app (reference §2.7, S-RR).
    public mutating func refund(_ productId: String, of customer: String, reason: Int32 = 0) throws(StoreError) {
        let product = try requireProduct(productId)
        if product.type == .autoRenewable {
            guard let key = subscriptionBook.chain(of: customer, current: product) else {
                throw .nothingToRefund(customer: customer, productId: productId)
            }
            try apply(.refunded(amount: .full, reason: reason), to: key)
        } else {
            guard let index = unrefundedOneTimePurchase(productId, of: customer) else {
                throw .nothingToRefund(customer: customer, productId: productId)
            }
            ledger.refundOneTimeInFull(index, reason: reason, at: now)
            sendAboutTransaction(.refund, index)
            for share in familyBook.sharesEnded(byRefundOf: index, ledger: ledger) {
                try endShare(share, reason: reason)
            }
        }
        refreshEntitlements()
    }

    /// The developer removes a product from sale. Nothing is sent now; the next renewal fails (reference §5.17,
    /// Appendix A-8: no notification at the moment of removal, S-F835965).
    public mutating func removeFromSale(_ productId: String) throws(StoreError) {
        try saleStatus.remove(try requireProduct(productId).id)
    }

    /// The developer puts a product back on sale; subscriptions failing because of its removal recover now.
    public mutating func restoreToSale(_ productId: String) throws(StoreError) {
        try saleStatus.restore(try requireProduct(productId).id)
        for key in subscriptionBook.purchasedChains(ofProduct: productId) { try apply(.productRestoredToSale, to: key) }
        refreshEntitlements()
    }

    // MARK: - Event handling

    mutating func handle(_ event: StoreEvent) throws(StoreError) {
        switch event {
        case .lifecycle(let key, let timer):
            // Store events are never rejected: the table only rejects customer actions. A date the event would
            // schedule past the supported range (years 1970 to 9999) stops the run.
            do { try apply(LifecycleInput(firing: timer), to: key) } catch {
                if case .scheduling = error { throw error }
            }
        case .nonRenewingTermEnds(let customer):
            directory.needsRefresh(customer)
        case .familyGrant(let share):
            try deliverPendingShare(share)
        case .priceIncreaseStarts(let increase):
            try startPriceIncrease(increase)
        case .priceIncreaseNotice(let increase, let key):
            try handlePriceIncreaseNotice(increase, for: key)
        }
        refreshEntitlements()
    }

    /// Runs one transition of a chain's lifecycle and carries out its effects. The chain is taken out of the
    /// ``SubscriptionBook`` for the transition and put back at the end (its slot holds
    /// ``SubscriptionChain/placeholder`` meanwhile): a transition changes it many times, and what it reads of the
    /// purchaser's chain while fanning out to family members it is handed (``PurchaserView``).
    mutating func apply(_ input: LifecycleInput, to key: ChainID) throws(StoreError) {
        var chain = subscriptionBook.take(key)
        defer { subscriptionBook.restore(&chain, key) }
        try transition(&chain, key: key, input)
    }

    /// ``apply(_:to:)`` on the chain it holds.
    private mutating func transition(
        _ chain: inout SubscriptionChain, key: ChainID, _ input: LifecycleInput
    ) throws(StoreError) {
        if let firedTimer = input.firedTimer { chain.timers[firedTimer] = nil }
        // Built here from the fields it needs, on the renewal path: the shared builder
        // (`LifecycleContext+Store.swift`, used by ``checkAllowed(_:on:)``) measured 3% more instructions per lifecycle
        // under callgrind here.
        let position = chain.customerPosition >= 0 ? chain.customerPosition : directory.positions[chain.customer]
        let context = LifecycleContext(
            now: now, paymentSucceeds: !(position.map { directory.records[$0].paymentFails } ?? false),
            productForSale: saleStatus.isForSale(chain.state.autoRenewProductId),
            gracePeriod: app.gracePeriod, graceEligibility: app.graceEligibility)
        switch SubscriptionLifecycle.transition(chain.state, input, context) {
        case .ignored:
            return
        case .rejected(let violation):
            throw .lifecycle(violation, customer: chain.customer, productId: chain.state.productId)
        case .changed(let state, let effects):
            let productBefore = chain.state.productId
            chain.state = state
            try perform(effects, on: &chain, key: key)
            // A plan change (at once, or a downgrade at renewal) may move between shareable and non-shareable
            // products (Store/SimulatedStore+PlanChanges.swift). A resubscription handles sharing itself.
            if input.kind != .purchasedAgain, chain.ownership == .purchased, chain.state.productId != productBefore {
                try shareAfterPlanChange(&chain, key: key, from: productBefore)
            }
        }
    }

    /// Throws the rule that refuses `input` on the chain `key` now, as ``apply(_:to:)`` would, without changing
    /// anything: an action that changes the store before it applies its input checks the rule with this first.
    func checkAllowed(_ input: LifecycleInput, on key: ChainID) throws(StoreError) {
        try LifecycleContext.checkAllowed(
            input, on: subscriptionBook.chains[key.index], directory: directory, saleStatus: saleStatus,
            app: app, at: now)
    }

    /// Carries out a transition's effects on a chain the caller holds (it is not in the ``SubscriptionBook``
    /// meanwhile): one line per effect, to the part or the composition that owns it.
    mutating func perform(_ effects: [LifecycleEffect], on chain: inout SubscriptionChain, key: ChainID)
        throws(StoreError)
    {
        // The product of the subscription after this transition (a resubscribe may change it), looked up once and
        // read in place (a copy would retain each of its strings, arrays and dictionaries).
        let productIndex = catalog.index(of: chain.state.productId)!
        // Members follow the purchaser only while the product is shareable: a plan change to a non-shareable
        // product ends their shares instead (rule plan-change-leaves-shareable-product).
        let fansOut = catalog.products[productIndex].familyShareable
        let customerPosition = position(of: chain)
        // Read once for the timers this transition schedules (rule order-key).
        let group = eventGroup(ofCustomerAt: customerPosition)
        // `revocationReason` of a refund's revocation, for the members' REVOKE notifications that follow it.
        var refundReason: Int32 = 0
        for effect in effects {
            switch effect {
            case .charge(let purchaseDate, let expiresDate, let offer, let reason):
                charge(
                    &chain, key: key, purchaseDate: purchaseDate, expiresDate: expiresDate, offer: offer,
                    reason: reason, customerAt: customerPosition, productAt: productIndex, toMembers: fansOut)
            case .revokeCurrentTransaction(let amount, let reason):
                refundReason = reason
                ledger.revoke(chain.currentTransactionIndex, .refund(amount, at: now, reason: reason), at: now)
            case .schedule(let timer, let instant):
                do throws(SchedulingError) {
                    try chain.timers.schedule(timer, of: key, at: instant, group: group, on: &scheduler)
                } catch { throw .scheduling(error) }
            case .cancelAllTimers:
                chain.timers.cancelAll(on: &scheduler)
            case .notify(let type, let subtype):
                try notify(
                    type, subtype, reporting: nil, of: chain, key: key, customerAt: customerPosition,
                    productAt: productIndex, toMembers: fansOut, refundReason: refundReason)
            case .notifyInterim(let type, let subtype, let snapshot):
                try notify(
                    type, subtype, reporting: snapshot, of: chain, key: key, customerAt: customerPosition,
                    productAt: productIndex, toMembers: fansOut, refundReason: refundReason)
            case .markCurrentTransactionUpgraded:
                markUpgraded(chain, key: key, membersToo: fansOut)
            case .extendCurrentTransaction(let expiresDate):
                extendTransactions(
                    of: key, current: chain.currentTransactionIndex, to: expiresDate,
                    commitmentExpiresDate: chain.state.commitment?.expiresDate)
            case .restoreCurrentTransaction:
                ledger.restore(chain.currentTransactionIndex, at: now)
            }
        }
    }

    /// The charge effect (``LifecycleEffect/charge(purchaseDate:expiresDate:offer:reason:)``): the chain's next
    /// transaction, built by the ``TransactionLedger`` (`chargeRecord`) and recorded there, then each family member's
    /// with the share (`toMembers`: the product is shareable). Always inlined into ``perform(_:on:key:)``, as it was
    /// written there (issue 27).
    @inline(__always)
    private mutating func charge(
        _ chain: inout SubscriptionChain, key: ChainID, purchaseDate: Instant, expiresDate: Instant,
        offer: IntroductoryOffer?, reason: ChargeReason, customerAt customerPosition: Int?, productAt productIndex: Int,
        toMembers fansOut: Bool
    ) {
        let owner = customerPosition ?? register(chain.customer)
        let (transactionId, webOrderLineItem) = directory.chargeIdentifiers(of: chain, customerAt: owner, ids: ids)
        let record = ledger.chargeRecord(
            of: &chain, transactionId: transactionId, webOrderLineItem: webOrderLineItem, purchaseDate: purchaseDate,
            expiresDate: expiresDate, offer: offer, reason: reason, catalog: catalog, productAt: productIndex,
            locks: &commitmentPriceLocks, at: now)
        if fansOut {
            chain.transactionFields = appendTransaction(
                record, customerAt: customerPosition, productAt: productIndex)
            // Then each member with the share, at the same instant (§4.4, §4.5), while the product is
            // shareable (rule plan-change-leaves-shareable-product).
            chargeMembers(sharing: key, like: record, currency: catalog.products[productIndex].currency)
        } else {
            // Nothing reads the record afterwards: moved into the ledger, not copied (a copy retains its
            // box and identifiers, issue 27).
            chain.transactionFields = appendTransaction(
                consume record, customerAt: customerPosition, productAt: productIndex)
        }
    }

    /// The notify effects: the notification about `interim` (nil: the chain's own state) to the chain's customer, and
    /// to the family members the purchase is shared with (`toMembers`: the product is shareable). The chain's own
    /// state is read in place rather than passed: a copy of it was made twice per notification (issue 27).
    private mutating func notify(
        _ type: NotificationType, _ subtype: NotificationSubtype?, reporting interim: SubscriptionState?,
        of chain: SubscriptionChain, key: ChainID, customerAt customerPosition: Int?, productAt productIndex: Int,
        toMembers: Bool, refundReason: Int32
    ) throws(StoreError) {
        // One call each: the renewal info is built into the argument and consumed there (a local would be copied).
        if let interim {
            send(
                type, subtype, to: chain.customer, at: customerPosition,
                transaction: ledger.transactions[chain.currentTransactionIndex],
                renewal: renewalSnapshot(of: chain, state: interim, productAt: productIndex), status: interim.phase)
        } else {
            send(
                type, subtype, to: chain.customer, at: customerPosition,
                transaction: ledger.transactions[chain.currentTransactionIndex],
                renewal: renewalSnapshot(of: chain, productAt: productIndex), status: chain.state.phase)
        }
        if chain.ownership == .purchased && toMembers {
            try notifyMembers(
                sharing: key, type, subtype,
                purchaser: PurchaserView(
                    customer: chain.customer, group: chain.group, groupIdentifier: chain.groupIdentifier,
                    record: ledger.transactions[chain.currentTransactionIndex], state: interim ?? chain.state),
                refundReason: refundReason)
        }
    }

    // MARK: - Purchases

    /// `redeemed`: an offer the customer redeems with this purchase (`Store/SimulatedStore+Offers.swift`); it takes
    /// the place of the introductory offer.
    mutating func purchaseSubscription(
        _ product: Product, by customer: String, redeemed: SubscriptionOffer? = nil, plan: BillingPlan = .upfront
    ) throws(StoreError) {
        let group = product.group!
        let groupKey = SubscriptionBook.customerGroupKey(customer, group)
        let offer = subscriptionBook.offer(forPurchaseOf: product, plan: plan, groupKey: groupKey, redeemed: redeemed)
        let request = PurchaseRequest(productId: product.id, period: product.period!, offer: offer, plan: plan)
        if let key = subscriptionBook.chain(of: customer, inGroup: group) {
            if subscriptionBook.isPlanChange(buying: product.id, on: key) {
                return try changePlan(key, to: product, plan: plan)
            }
            let input = SubscriptionBook.purchaseAgainInput(request, redeemed: redeemed)
            // The rule first: a refused purchase changes nothing (neither the start date nor the shares below).
            try checkAllowed(input, on: key)
            subscriptionBook.restartRecentSubscriptionAfterGap(of: key, ledger: ledger, at: now)
            // Members reach a resubscription only after the family delay, like any new purchase (§4.4, A-5).
            try suspendShares(of: key)
            try apply(input, to: key)
            try startSharingNewPurchase(chain: key, product: product)
        } else {
            let customerPosition = register(customer)
            let originalId = nextTransactionIdentifier(forCustomerAt: customerPosition).text
            let (state, effects) = SubscriptionLifecycle.initialPurchase(request, at: now)
            var chain = SubscriptionBook.firstPurchaseChain(
                originalTransactionId: originalId, customer: customer, customerAt: customerPosition, group: group,
                groupIdentifier: catalog.subscriptionGroupIdentifier(for: group), state: state, at: now)
            let key = subscriptionBook.nextID
            try perform(effects, on: &chain, key: key)
            insertChain(chain)
            subscriptionBook.index(key, customer: customer, group: group)
            try startSharingNewPurchase(chain: key, product: product)
        }
        if offer != nil && redeemed == nil { subscriptionBook.markIntroOfferUsed(groupKey) }
    }

    /// A consumable, non-consumable or non-renewing purchase (``TransactionLedger/checkOneTimePurchase(of:by:owned:at:)``,
    /// ``TransactionLedger/oneTimePurchase(of:by:transactionId:offer:at:)``): ONE_TIME_CHARGE; a non-renewing term's
    /// end is scheduled; a shareable non-consumable reaches the family after the family delay.
    mutating func purchaseOneTime(
        _ product: Product, by customer: String, offer: SubscriptionOffer? = nil
    ) throws(StoreError) {
        let owned = product.type == .nonConsumable ? unrefundedOneTimePurchase(product.id, of: customer) : nil
        let term = try TransactionLedger.checkOneTimePurchase(of: product, by: customer, owned: owned, at: now)
        let record = TransactionLedger.oneTimePurchase(
            of: product, by: customer, transactionId: nextTransactionId(for: customer), offer: offer, at: now)
        let index = ledger.nextIndex
        if let term {
            ledger.startTerm(of: index, ending: term)
            do throws(SchedulingError) {
                try scheduler.schedule(
                    .nonRenewingTermEnds(customer: customer), at: term, priority: StoreEventPriority.storeEvent,
                    group: eventGroup(ofCustomerAt: directory.positions[customer]))
            } catch { throw .scheduling(error) }
        }
        appendTransaction(record)
        send(.oneTimeCharge, nil, to: customer, transaction: ledger.transactions[index], renewal: nil, status: nil)
        if product.type == .nonConsumable && product.familyShareable {
            try scheduleShares(of: .nonConsumable(transactionIndex: index), purchaser: customer)
        }
    }

    // MARK: - Notifications

    /// Sends a notification to `recipient`; `position`: the recipient's position in the directory when the caller
    /// knows it (saves hashing the name).
    /// ``EmissionLog/send(_:_:to:at:directory:transaction:renewal:status:restored:at:)``
    mutating func send(
        _ type: NotificationType, _ subtype: NotificationSubtype?, to recipient: String, at position: Int? = nil,
        transaction: consuming TransactionRecord, renewal: consuming RenewalSnapshot?, status: SubscriptionPhase?,
        restored: Bool = false
    ) {
        emissions.send(
            type, subtype, to: recipient, at: position ?? register(recipient), directory: &directory,
            transaction: transaction, renewal: renewal, status: status, restored: restored, at: now)
    }

    /// Sends a notification about the app itself (``EmissionLog/sendAboutTheApp(_:_:summary:uuid:at:)``).
    @discardableResult
    mutating func sendAboutTheApp(
        _ type: NotificationType, _ subtype: NotificationSubtype?, summary: RenewalExtensionSummary? = nil
    ) -> SentNotification {
        emissions.sendAboutTheApp(type, subtype, summary: summary, uuid: ids.nextStoreNotificationUUID(), at: now)
    }

    /// The renewal info of `chain` in its own state: ``renewalSnapshot(of:state:productAt:)`` with `chain.state`, read
    /// in place (passing `chain.state` copies the state to the call, issue 27).
    func renewalSnapshot(of chain: SubscriptionChain, productAt known: Int? = nil) -> RenewalSnapshot {
        RenewalInfoModel.snapshot(
            of: chain, state: chain.state, productAt: known, catalog: catalog, directory: directory,
            serverRequests: serverRequests, schedule: priceIncreaseSchedule, locks: commitmentPriceLocks,
            ledger: ledger, defaultStorefront: app.storefront, at: now)
    }

    /// The renewal info of `chain` in `state` (``RenewalInfoModel``); `productAt`: the place of `state.productId` in
    /// the catalogue, when the caller has looked it up.
    func renewalSnapshot(of chain: SubscriptionChain, state: SubscriptionState, productAt known: Int? = nil)
        -> RenewalSnapshot
    {
        RenewalInfoModel.snapshot(
            of: chain, state: state, productAt: known, catalog: catalog, directory: directory,
            serverRequests: serverRequests, schedule: priceIncreaseSchedule, locks: commitmentPriceLocks,
            ledger: ledger, defaultStorefront: app.storefront, at: now)
    }

    // MARK: - Entitlements

    /// Re-derives and logs the entitlements of every customer something happened to since the last refresh
    /// (``CustomerDirectory/refreshEntitlements(book:ledger:emissions:at:)``).
    mutating func refreshEntitlements() {
        directory.refreshEntitlements(book: subscriptionBook, ledger: ledger, emissions: &emissions, at: now)
    }

    // MARK: - Lookups

    /// The customer's own chain in `product`'s group, if any.
    func chainKey(_ customer: String, _ product: Product) -> ChainID? {
        product.group.flatMap { subscriptionBook.chain(of: customer, inGroup: $0) }
    }

    /// The customer's chains, in creation order.
    func chainKeys(of customer: String) -> [ChainID] {
        directory.chains(of: customer)
    }

    /// Registers a new chain (the one place chains are created) with its customer, and returns its id.
    @discardableResult
    mutating func insertChain(_ chain: consuming SubscriptionChain) -> ChainID {
        let position = register(chain.customer)
        let key = subscriptionBook.append(chain, customerAt: position)
        directory.addChain(key, toCustomerAt: position)
        return key
    }

    /// Records a transaction; `customerAt` and `productAt`, when the caller knows them, save hashing the names.
    /// Returns its shared fields.
    /// ``TransactionLedger/record(_:customerAt:productAt:directory:serverRequests:locks:catalog:defaultStorefront:seed:at:)``
    @discardableResult
    mutating func appendTransaction(
        _ record: consuming TransactionRecord, customerAt knownPosition: Int? = nil, productAt product: Int? = nil
    ) -> TransactionRecord.Box {
        ledger.record(
            record, customerAt: knownPosition ?? register(record.customer), productAt: product, directory: &directory,
            serverRequests: serverRequests, locks: commitmentPriceLocks, catalog: catalog,
            defaultStorefront: app.storefront, seed: seed, at: now)
    }

    func requireProduct(_ id: String) throws(StoreError) -> Product {
        guard let product = catalog[id] else { throw .unknownProduct(id) }
        return product
    }

    func requireChain(_ productId: String, _ customer: String) throws(StoreError) -> ChainID {
        guard let key = subscriptionBook.chain(of: customer, current: try requireProduct(productId)) else {
            throw .noSubscription(customer: customer, productId: productId)
        }
        return key
    }
}
