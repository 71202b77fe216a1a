import Foundation

/// What griptrack knows about one subscription (one `originalTransactionId`): its newest verified transaction
/// and its newest verified renewal info. Only ``EntitlementState/applying(verified:now:)`` changes it.
public struct SubscriptionRecord: Hashable, Sendable, Codable {
    /// The subscription's identity.
    public let originalTransactionId: String
    /// The newest verified transaction (by `signedDate`).
    public internal(set) var transaction: TransactionPayload?
    /// The newest verified renewal info (by `signedDate`).
    public internal(set) var renewalInfo: RenewalInfoPayload?

    init(originalTransactionId: String, transaction: TransactionPayload? = nil, renewalInfo: RenewalInfoPayload? = nil) {
        self.originalTransactionId = originalTransactionId
        self.transaction = transaction
        self.renewalInfo = renewalInfo
    }

    /// The newest `signedDate` of this subscription's data: when the App Store last vouched for it.
    /// The offline grace runs from here, never from the moment the data was imported.
    public var lastVerified: Date? {
        switch (transaction?.signedDate, renewalInfo?.signedDate) {
        case (let a?, let b?): max(a, b)
        case (let a?, nil): a
        case (nil, let b?): b
        case (nil, nil): nil
        }
    }

    /// The status at `time`, derived from the transaction and renewal info: revoked if `revocationDate` is set,
    /// else active while `time < expiresDate`, else billing grace while in billing retry and
    /// `time < gracePeriodExpiresDate`, else billing retry, else expired.
    ///
    /// - Parameter time: The instant to judge at.
    /// - Returns: The status, or `nil` without a transaction (renewal info alone never grants).
    public func status(at time: Date) -> SubscriptionStatus? {
        guard let transaction else { return nil }
        if transaction.revocationDate != nil { return .revoked }
        if let expires = transaction.expiresDate, time < expires { return .active }
        if renewalInfo?.isInBillingRetryPeriod == true {
            if let grace = renewalInfo?.gracePeriodExpiresDate, time < grace { return .billingGracePeriod }
            return .billingRetry
        }
        return .expired
    }
}
