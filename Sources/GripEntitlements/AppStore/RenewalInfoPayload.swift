import Foundation

/// Decoded subscription renewal information (`JWSRenewalInfoDecodedPayload`).
///
/// It carries no bundle id; it binds to a subscription only through ``originalTransactionId``.
public struct RenewalInfoPayload: Hashable, Sendable, Codable {
    /// The subscription this renewal information belongs to (the join key).
    public var originalTransactionId: String?
    /// 1 when the subscription will renew, 0 when the customer turned renewal off. Grants nothing by itself.
    public var autoRenewStatus: Int?
    /// The product that the next period renews to.
    public var autoRenewProductId: String?
    /// The current product.
    public var productId: String?
    /// True while the App Store retries a failed renewal payment.
    public var isInBillingRetryPeriod: Bool?
    /// End of the billing grace period: access continues until then while renewal payment is retried.
    public var gracePeriodExpiresDate: Date?
    /// 1 cancelled, 2 billing error, 3 price increase declined, 4 product unavailable, 5 other.
    public var expirationIntent: Int?
    /// When the next renewal is due.
    public var renewalDate: Date?
    /// Start of the current run of uninterrupted periods.
    public var recentSubscriptionStartDate: Date?
    /// Raw offer type of the next period.
    public var offerType: Int?
    /// The next period's offer identifier.
    public var offerIdentifier: String?
    /// The UUID the app attached to the purchase.
    public var appAccountToken: String?
    /// Price-increase consent status.
    public var priceIncreaseStatus: Int?
    /// When the App Store signed this data.
    public var signedDate: Date?
    /// The environment that signed the data.
    public var environment: AppStoreEnvironment?

    /// Whether the customer turned automatic renewal off (known not to renew).
    public var willNotRenew: Bool { autoRenewStatus == 0 }
}
