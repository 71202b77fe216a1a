/// The three kinds of App Store signed data griptrack understands.
public enum SignedDataKind: String, Hashable, Sendable, Codable, CaseIterable {
    /// A `JWSTransactionDecodedPayload` (`signedTransactionInfo`).
    case transaction
    /// A `JWSRenewalInfoDecodedPayload` (`signedRenewalInfo`).
    case renewalInfo
    /// A `ResponseBodyV2DecodedPayload` (an App Store Server Notification V2 `signedPayload`).
    case notification
}
