import SubscriptionSimulator

#if canImport(Testing)
    import Testing

    // How Swift Testing prints the simulator's values in a failed `#expect`: in Apple's words, as the wire carries
    // them (the notification enums print their wire strings everywhere: `NotificationType`'s `description`).

    /// `4 (gracePeriod)`: Apple's status code, then the case.
    extension SubscriptionPhase: CustomTestStringConvertible {
        public var testDescription: String { "\(statusCode) (\(self))" }
    }

    /// `FAMILY_SHARED`, Apple's `inAppOwnershipType`.
    extension Ownership: CustomTestStringConvertible {
        public var testDescription: String { WireValues.ownership(self) }
    }

    /// `Auto-Renewable Subscription`, Apple's transaction `type`.
    extension ProductType: CustomTestStringConvertible {
        public var testDescription: String { WireValues.productType(self) }
    }
#endif
