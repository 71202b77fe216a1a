import Foundation
import GripSystem

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

    /// Why this data may not be applied to the account whose UUID is `expected`: its transaction's
    /// `appAccountToken` is missing or another account's. The one binding rule for `pro import` and for the
    /// notifications a Pi pulls from its account's rows (docs/account.md, "Pro follows the account").
    ///
    /// Renewal info binds only through its `originalTransactionId` and is not checked, nor is a notification
    /// without a transaction.
    ///
    /// - Parameters:
    ///   - expected: The account's UUID (the app's `appAccountToken`).
    ///   - source: Where `expected` came from, for the message (e.g. `app_store.account_token`).
    /// - Returns: An `appIdentifier` failure naming both tokens, or `nil` when the data belongs to the account.
    public func accountBindingFailure(expected: UUID, source: String) -> VerificationFailure? {
        let transaction: (payload: TransactionPayload, json: String)?
        switch self {
        case .transaction(let value): transaction = (value.payload, value.payloadJSON)
        case .notification(let value): transaction = value.transaction.map { ($0.payload, value.notification.payloadJSON) }
        case .renewalInfo: transaction = nil
        }
        guard let transaction else { return nil }
        let token = transaction.payload.appAccountToken.flatMap(UUID.init(uuidString:))
        guard token != expected else { return nil }
        return VerificationFailure(
            .appIdentifier,
            "appAccountToken \(transaction.payload.appAccountToken.map { $0.quotedForLog(limit: 40) } ?? "missing"), expected "
                + "\"\(expected.uuidString.lowercased())\" (\(source))",
            payloadJSON: transaction.json)
    }
}
