/// App Store subscription status (the numbering of App Store Server API `Status`).
public enum SubscriptionStatus: Int, Hashable, Sendable, Codable, CaseIterable {
    /// `now < expiresDate` and not revoked.
    case active = 1
    /// Lapsed.
    case expired = 2
    /// Renewal failed, no (or no more) grace; Apple retries for up to 60 days. No access.
    case billingRetry = 3
    /// Renewal failed, still inside `gracePeriodExpiresDate`. Access continues.
    case billingGracePeriod = 4
    /// Refunded or revoked (family sharing). No access.
    case revoked = 5

    /// Whether this status entitles the customer to Pro (only active and billing grace do).
    public var grantsAccess: Bool { self == .active || self == .billingGracePeriod }
}
