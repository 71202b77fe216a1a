import Foundation

/// A decoded App Store transaction (`JWSTransactionDecodedPayload`).
///
/// Every field is optional because Apple adds and omits fields over time. Enum-like fields keep Apple's raw
/// values; typed views sit next to them. Dates are decoded from milliseconds since 1970 (which may be fractional).
public struct TransactionPayload: Hashable, Sendable, Codable {
    /// The subscription's identity across renewals: the key for replay protection.
    public var originalTransactionId: String?
    /// The identifier of this period's transaction.
    public var transactionId: String?
    /// Apple's web order line item id.
    public var webOrderLineItemId: String?
    /// The app's bundle identifier; must match the verifier's.
    public var bundleId: String?
    /// The product purchased, e.g. `"griptrack.pro.yearly"`.
    public var productId: String?
    /// The subscription group.
    public var subscriptionGroupIdentifier: String?
    /// When this period was bought or renewed.
    public var purchaseDate: Date?
    /// When the subscription was first bought.
    public var originalPurchaseDate: Date?
    /// End of the paid period: access is active while `now < expiresDate`.
    public var expiresDate: Date?
    /// Number of items bought.
    public var quantity: Int?
    /// Raw product type, e.g. `"Auto-Renewable Subscription"`.
    public var type: String?
    /// The UUID the app attached to the purchase, as a string.
    public var appAccountToken: String?
    /// `"PURCHASED"` or `"FAMILY_SHARED"`; both grant access.
    public var inAppOwnershipType: String?
    /// When the App Store signed this data: the chain's validation time and the replay-ordering key.
    public var signedDate: Date?
    /// Why it was revoked: 0 other (incl. leaving family sharing), 1 an app issue.
    public var revocationReason: Int?
    /// Present when the transaction was refunded or revoked: no access from then on.
    public var revocationDate: Date?
    /// Raw revocation type, e.g. `"REFUND_FULL"`, `"REFUND_PRORATED"`, `"FAMILY_REVOKE"`.
    public var revocationType: String?
    /// Refunded share in thousandths of a percent.
    public var revocationPercentage: Int?
    /// True when an upgrade superseded this transaction.
    public var isUpgraded: Bool?
    /// 1 introductory (incl. free trial), 2 promotional, 3 offer code, 4 win-back.
    public var offerType: Int?
    /// The offer's identifier.
    public var offerIdentifier: String?
    /// The environment that signed the data.
    public var environment: AppStoreEnvironment?
    /// Three-letter storefront code.
    public var storefront: String?
    /// Apple's storefront id.
    public var storefrontId: String?
    /// `"PURCHASE"` or `"RENEWAL"`.
    public var transactionReason: String?
    /// Price in milli-units of `currency`.
    public var price: Int64?
    /// ISO 4217 currency code.
    public var currency: String?
    /// Raw offer discount type, e.g. `"FREE_TRIAL"`.
    public var offerDiscountType: String?
    /// The app transaction this purchase belongs to.
    public var appTransactionId: String?
    /// ISO 8601 duration of the offer.
    public var offerPeriod: String?

    /// Whether this is an auto-renewable or non-renewing subscription, the only types that can grant Pro.
    public var isSubscription: Bool {
        type == "Auto-Renewable Subscription" || type == "Non-Renewing Subscription"
    }

    /// Whether the period is an introductory offer (a free trial is one, and it is Pro).
    public var isIntroductoryOffer: Bool { offerType == 1 }
}
