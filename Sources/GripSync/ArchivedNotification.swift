import Foundation

/// A verified App Store Server Notification as griptrack-hub stores it (`appstore_notifications`): the signed JWS
/// strings exactly as received, and the decoded fields dashboards read. Pis read only the signed strings back and
/// verify them again (docs/account.md, "Trust").
package struct ArchivedNotification: Sendable, Equatable {
    /// `notificationUUID`: the key, so a notification the App Store sends again is stored once.
    package var notificationUUID: String
    /// `notificationType` and `subtype` (`SUBSCRIBED`, `INITIAL_BUY`, …).
    package var type: String
    package var subtype: String?
    /// The transaction's `appAccountToken`: the account's UUID, when the app set it.
    package var appAccountToken: UUID?
    package var originalTransactionId: String?
    /// The notification's `signedDate`.
    package var signedAt: Date?
    /// The transaction's `expiresDate`.
    package var expiresAt: Date?
    /// The transaction's `offerType`: 3 is an offer code redeemed, which completes a referral.
    package var offerType: Int?
    /// The `signedPayload` as received, and the nested signed transaction and renewal info.
    package var signedPayload: String
    package var signedTransaction: String?
    package var signedRenewalInfo: String?

    /// Creates a record.
    /// - Parameters: See the properties.
    package init(
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
