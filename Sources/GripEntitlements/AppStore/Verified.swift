import Foundation

/// A payload whose signature, certificate chain and app identity an ``AppStoreVerifier`` has checked.
///
/// Only the verifier creates values of this type, so anything handed to
/// ``EntitlementState/applying(verified:now:)`` went through verification.
public struct Verified<Payload: Hashable & Sendable>: Hashable, Sendable {
    /// The decoded payload.
    public let payload: Payload
    /// The payload's JSON text exactly as signed.
    public let payloadJSON: String
    /// The payload's `signedDate`, if it has one.
    public let signedDate: Date?

    init(payload: Payload, payloadJSON: String, signedDate: Date?) {
        self.payload = payload
        self.payloadJSON = payloadJSON
        self.signedDate = signedDate
    }
}

/// A verified notification together with its verified nested transaction and renewal info.
public struct VerifiedNotification: Hashable, Sendable {
    /// The notification itself.
    public let notification: Verified<NotificationPayload>
    /// `data.signedTransactionInfo`, verified on its own.
    public let transaction: Verified<TransactionPayload>?
    /// `data.signedRenewalInfo`, verified on its own.
    public let renewalInfo: Verified<RenewalInfoPayload>?
}

/// Any verified App Store signed data.
public enum VerifiedSignedData: Hashable, Sendable {
    /// A verified transaction.
    case transaction(Verified<TransactionPayload>)
    /// Verified renewal info.
    case renewalInfo(Verified<RenewalInfoPayload>)
    /// A verified notification with its nested data.
    case notification(VerifiedNotification)

    /// Which kind of signed data this is.
    public var kind: SignedDataKind {
        switch self {
        case .transaction: .transaction
        case .renewalInfo: .renewalInfo
        case .notification: .notification
        }
    }

    /// The top-level payload's JSON text.
    public var payloadJSON: String {
        switch self {
        case .transaction(let verified): verified.payloadJSON
        case .renewalInfo(let verified): verified.payloadJSON
        case .notification(let verified): verified.notification.payloadJSON
        }
    }

    /// The top-level payload's `signedDate`.
    public var signedDate: Date? {
        switch self {
        case .transaction(let verified): verified.signedDate
        case .renewalInfo(let verified): verified.signedDate
        case .notification(let verified): verified.notification.signedDate
        }
    }

    /// Whether the data is valid but signed too long ago to grant Pro at `now` (older than
    /// ``EntitlementPolicy/offlineGrace``, or undated). Such data may still take access away.
    ///
    /// - Parameter now: The current time.
    /// - Returns: `true` when `pro verify` should warn that the data cannot grant access.
    public func isTooOldToGrant(now: Date) -> Bool {
        guard let signedDate else { return true }
        return signedDate.addingTimeInterval(EntitlementPolicy.offlineGrace) <= now
    }
}
