/// Where one share of a purchase with one family member stands (reference §4.2-§4.6).
enum SharePhase: Hashable, Sendable {
    /// Waiting for the family delay, which ends at the instant given; the member has nothing yet (rule family-delay).
    case pending(at: Instant)
    /// Started while the purchaser's subscription was in billing retry; the member has nothing yet and receives it at
    /// the recovery (rule share-held-during-billing-retry, ``FamilyRules/shareStart(purchaserPhase:)``).
    case held
    /// The member has (or had, if the purchaser's subscription since expired) their own transaction.
    case granted
    /// Revoked, or cancelled before it reached the member.
    case ended
}

/// What happens to a share. Each input carries the facts the rules read, worked out by the store.
enum ShareInput: Hashable, Sendable {
    /// A new purchase, a resubscription or a plan change into a shareable product: the member receives it after the
    /// family delay, at `at` (rule family-delay). The share waits whatever its phase [as built: a share already
    /// waiting keeps its earlier grant event too, which then delivers it at the earlier instant].
    case delayStarted(at: Instant)
    /// The share is offered to a member who does not have it (a member joins, the purchaser opts in): at the instant
    /// of a grant already pending for others in the family (`joiningPendingAt`), or now as `start` says.
    case offered(joiningPendingAt: Instant?, start: FamilyRules.ShareStart)
    /// The family delay is over: `sameFamily` is whether member and purchaser are still in one family; `start`
    /// what the purchase gives now (``FamilyRules/shareStart(purchaserPhase:)``).
    case delayEnded(sameFamily: Bool, start: FamilyRules.ShareStart)
    /// The member restores purchases: a shared non-consumable that became shareable after it was bought reaches
    /// them now (reference §4.5, §7.2, Appendix B-11 [assumed]).
    case restored
    /// The purchaser received a notification about the shared subscription: `type` and `subtype`, reporting phase
    /// `purchaserPhase`; `refundReason` is the `revocationReason` of a refund in the same transition (rule
    /// member-notifications).
    case purchaserNotified(
        NotificationType, NotificationSubtype?, purchaserPhase: SubscriptionPhase, refundReason: Int32)
    /// The purchaser resubscribed: a resubscription is a new purchase, so grants stop mirroring it (§4.4, A-5).
    case purchaserResubscribed
    /// The share ends: sharing switched off, someone left the family, the purchase was refunded or moved to a
    /// product that is not shareable. `reason` is the `revocationReason` of the member's REVOKE (0, or the refund's).
    case ended(reason: Int32)
}

/// What the store does for a share transition. Data only.
enum ShareEffect: Hashable, Sendable {
    /// Schedule the family-delay grant event at the instant (the share remembers the event).
    case scheduleGrant(at: Instant)
    /// Cancel the share's scheduled grant event.
    case cancelGrant
    /// Give the member their own transaction and notify them (`SUBSCRIBED`, or `ONE_TIME_CHARGE` for a
    /// non-consumable, as restored when `restored`).
    case grant(restored: Bool)
    /// Send the member `type` and `subtype` about their own transaction, reporting the purchaser's state.
    case notifyMember(NotificationType, NotificationSubtype?)
    /// If the member still has the shared access: `REVOKE` with `FAMILY_REVOKE` and `reason` (§4.6, A-11).
    case revokeMember(reason: Int32)
}

/// The result of one share transition.
enum ShareTransitionResult: Hashable, Sendable {
    /// The input does not apply in this phase: nothing changes.
    case ignored
    /// The new phase, and the effects the store carries out, in order.
    case changed(SharePhase, [ShareEffect])
}

/// Family Sharing's share machine: (phase x input) -> new phase + effects, pure like ``SubscriptionLifecycle``'s
/// table. The store works out the facts (family membership, ``FamilyRules/shareStart(purchaserPhase:)``) and carries
/// out the effects. Every (phase, input) pair is a row below.
enum ShareTransition {
    static func transition(_ phase: SharePhase, _ input: ShareInput) -> ShareTransitionResult {
        switch (phase, input) {
        case (_, .delayStarted(let at)):
            return .changed(.pending(at: at), [.scheduleGrant(at: at)])

        case (.ended, .offered(let joiningPendingAt, let start)):
            if let at = joiningPendingAt { return .changed(.pending(at: at), [.scheduleGrant(at: at)]) }
            return starting(start)
        case (.pending, .offered), (.held, .offered), (.granted, .offered):
            return .ignored  // the member has it, or will

        case (.pending, .delayEnded(let sameFamily, let start)):
            // Someone left the family during the delay: the member never receives it.
            return sameFamily ? starting(start) : .changed(.ended, [])
        case (.held, .delayEnded), (.granted, .delayEnded), (.ended, .delayEnded):
            return .ignored  // a grant event the share no longer waits for

        case (.pending, .restored), (.held, .restored), (.ended, .restored):
            return .changed(.granted, [.grant(restored: true)])
        case (.granted, .restored):
            return .ignored

        case (.held, .purchaserNotified(_, _, let purchaserPhase, _)):
            // Rule share-held-during-billing-retry: a held share asks again each time the purchaser's phase changes.
            switch FamilyRules.shareStart(purchaserPhase: purchaserPhase) {
            case .grantNow: return .changed(.granted, [.grant(restored: false)])
            case .holdUntilRecovery: return .ignored
            case .nothing: return .changed(.ended, [])
            }
        case (.granted, .purchaserNotified(let type, let subtype, _, let refundReason)):
            // Rule member-notifications: what the member receives when the purchaser receives `type`.
            switch FamilyRules.memberNotification(for: type) {
            case nil: return .ignored
            case .revoke?: return .changed(.ended, [.revokeMember(reason: refundReason)])
            case let memberType?: return .changed(.granted, [.notifyMember(memberType, subtype)])
            }
        case (.pending, .purchaserNotified), (.ended, .purchaserNotified):
            return .ignored  // the member has nothing to be told about

        case (.granted, .purchaserResubscribed):
            return .changed(.ended, [])
        case (.pending, .purchaserResubscribed), (.held, .purchaserResubscribed), (.ended, .purchaserResubscribed):
            return .ignored

        case (.granted, .ended(let reason)):
            return .changed(.ended, [.revokeMember(reason: reason)])
        case (.pending, .ended):
            return .changed(.ended, [.cancelGrant])  // inside the delay the member never receives it
        case (.held, .ended):
            return .changed(.ended, [])  // nothing was given, so nothing is revoked
        case (.ended, .ended):
            return .ignored
        }
    }

    /// A share that starts now, as ``FamilyRules/shareStart(purchaserPhase:)`` (or a non-consumable's sharing) says.
    static func starting(_ start: FamilyRules.ShareStart) -> ShareTransitionResult {
        switch start {
        case .grantNow: return .changed(.granted, [.grant(restored: false)])
        case .holdUntilRecovery: return .changed(.held, [])
        case .nothing: return .changed(.ended, [])
        }
    }
}
