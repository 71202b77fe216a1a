import Foundation

/// Verified App Store renewal info: the raw JWS, its decoded payload, and the key fields the resolver reads.
///
/// Only the newest per `originalTransactionId` is kept. Dates are milliseconds since 1970, possibly fractional.
public struct StoredRenewalInfo: Sendable, Equatable {
    public var originalTransactionId: String
    public var environment: String?
    public var signedDateMillis: Double
    public var renewalDateMillis: Double?
    public var gracePeriodExpiresDateMillis: Double?
    /// The decoded payload as JSON text, so the resolver can read any other field.
    public var payloadJSON: String
    /// The compact JWS as received.
    public var jws: String
    /// When this process verified it (host time).
    public var verifiedAt: Date

    /// Creates a renewal info value.
    ///
    /// - Parameters: See the properties.
    public init(
        originalTransactionId: String, environment: String?, signedDateMillis: Double, renewalDateMillis: Double?,
        gracePeriodExpiresDateMillis: Double?, payloadJSON: String, jws: String, verifiedAt: Date
    ) {
        self.originalTransactionId = originalTransactionId
        self.environment = environment
        self.signedDateMillis = signedDateMillis
        self.renewalDateMillis = renewalDateMillis
        self.gracePeriodExpiresDateMillis = gracePeriodExpiresDateMillis
        self.payloadJSON = payloadJSON
        self.jws = jws
        self.verifiedAt = verifiedAt
    }
}
