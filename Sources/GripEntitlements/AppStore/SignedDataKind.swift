/// The three kinds of App Store signed data griptrack understands.
public enum SignedDataKind: String, Hashable, Sendable, Codable, CaseIterable {
    /// A `JWSTransactionDecodedPayload` (`signedTransactionInfo`).
    case transaction
    /// A `JWSRenewalInfoDecodedPayload` (`signedRenewalInfo`).
    case renewalInfo
    /// A `ResponseBodyV2DecodedPayload` (an App Store Server Notification V2 `signedPayload`).
    case notification
}

extension SignedDataKind {
    /// The kind as `griptrack pro import --as` and the socket's PRO import `kind` name it: `transaction`,
    /// `renewal-info` or `notification`; nil for `auto` (the payload tells) or any other name.
    public init?(argumentName: String) {
        switch argumentName {
        case "transaction": self = .transaction
        case "renewal-info": self = .renewalInfo
        case "notification": self = .notification
        default: return nil
        }
    }
}
