import Foundation

/// A verified App Store transaction: the raw JWS, its decoded payload, and the key fields the resolver reads.
///
/// App Store dates are milliseconds since 1970, possibly fractional, kept exactly as decoded.
public struct StoredTransaction: Sendable, Equatable {
    public var transactionId: String
    public var originalTransactionId: String
    public var productId: String?
    public var environment: String?
    public var signedDateMillis: Double
    public var purchaseDateMillis: Double?
    public var expiresDateMillis: Double?
    public var revocationDateMillis: Double?
    /// The decoded payload as JSON text, so the resolver can read any other field.
    public var payloadJSON: String
    /// The compact JWS as received.
    public var jws: String
    /// When this process verified it (host time).
    public var verifiedAt: Date

    /// Creates a transaction value.
    ///
    /// - Parameters: See the properties.
    public init(
        transactionId: String, originalTransactionId: String, productId: String?, environment: String?,
        signedDateMillis: Double, purchaseDateMillis: Double?, expiresDateMillis: Double?,
        revocationDateMillis: Double?, payloadJSON: String, jws: String, verifiedAt: Date
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.environment = environment
        self.signedDateMillis = signedDateMillis
        self.purchaseDateMillis = purchaseDateMillis
        self.expiresDateMillis = expiresDateMillis
        self.revocationDateMillis = revocationDateMillis
        self.payloadJSON = payloadJSON
        self.jws = jws
        self.verifiedAt = verifiedAt
    }
}
