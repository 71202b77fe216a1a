import Foundation

/// A verified App Store Server Notification as griptrack-hub stores it (`appstore_notifications`): the signed JWS
/// strings exactly as received, and the decoded fields dashboards read. Pis read only the signed strings back and
/// verify them again (docs/account.md, "Trust").
public struct ArchivedNotification: Sendable, Equatable {
    /// `notificationUUID`: the key, so a notification the App Store sends again is stored once.
    public var notificationUUID: String
    /// `notificationType` and `subtype` (`SUBSCRIBED`, `INITIAL_BUY`, …).
    public var type: String
    public var subtype: String?
    /// The transaction's `appAccountToken`: the account's UUID, when the app set it.
    public var appAccountToken: UUID?
    public var originalTransactionId: String?
    /// The notification's `signedDate`.
    public var signedAt: Date?
    /// The transaction's `expiresDate`.
    public var expiresAt: Date?
    /// The transaction's `offerType`: 3 is an offer code redeemed, which completes a referral.
    public var offerType: Int?
    /// The `signedPayload` as received, and the nested signed transaction and renewal info.
    public var signedPayload: String
    public var signedTransaction: String?
    public var signedRenewalInfo: String?

    /// Creates a record.
    /// - Parameters: See the properties.
    public init(
        notificationUUID: String, type: String, subtype: String?, appAccountToken: UUID?,
        originalTransactionId: String?, signedAt: Date?, expiresAt: Date?, offerType: Int? = nil, signedPayload: String,
        signedTransaction: String?, signedRenewalInfo: String?
    ) {
        self.notificationUUID = notificationUUID
        self.type = type
        self.subtype = subtype
        self.appAccountToken = appAccountToken
        self.originalTransactionId = originalTransactionId
        self.signedAt = signedAt
        self.expiresAt = expiresAt
        self.offerType = offerType
        self.signedPayload = signedPayload
        self.signedTransaction = signedTransaction
        self.signedRenewalInfo = signedRenewalInfo
    }
}
