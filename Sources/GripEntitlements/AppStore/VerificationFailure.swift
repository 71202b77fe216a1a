/// Why a piece of App Store signed data was not accepted.
///
/// A permanent failure (``isRetryable`` false) means the data is bad and will stay bad: it never upgrades access.
/// A retryable failure means the data could not be checked right now (for example the signed date is ahead of this
/// device's clock): it never downgrades a cached Pro state either; try again later.
public struct VerificationFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The class of failure, stable for CLI output (`pro verify` exits 5 and prints it).
    public enum Category: String, Hashable, Sendable, Codable, CaseIterable {
        /// Not a compact JWS with a usable header: wrong part count, bad base64 or JSON, alg ≠ ES256,
        /// x5c missing or not exactly three certificates, unparsable certificate, unknown payload kind.
        case format
        /// The certificates do not chain to a trusted root at the signed date, lack Apple's OIDs, are expired,
        /// or the signed date is unusable.
        case chain
        /// The ES256 signature does not verify over the header and payload.
        case signature
        /// The bundle id (or, in Production, the app Apple ID) does not match the configuration.
        case appIdentifier
        /// The payload's environment differs from the configured one.
        case environment
    }

    /// The class of failure.
    public let category: Category
    /// Whether trying again later may succeed.
    public let isRetryable: Bool
    /// What exactly was wrong, for logs and the CLI.
    public let detail: String
    /// The decoded payload JSON text when the payload could be decoded, so the CLI can print it even on failure.
    public let payloadJSON: String?

    /// Creates a failure.
    ///
    /// - Parameters:
    ///   - category: The class of failure.
    ///   - detail: What was wrong.
    ///   - isRetryable: Whether a later attempt may succeed; `false` unless the cause is temporary.
    ///   - payloadJSON: The decoded payload text, when available.
    public init(_ category: Category, _ detail: String, isRetryable: Bool = false, payloadJSON: String? = nil) {
        self.category = category
        self.detail = detail
        self.isRetryable = isRetryable
        self.payloadJSON = payloadJSON
    }

    func withPayload(_ json: String?) -> VerificationFailure {
        VerificationFailure(category, detail, isRetryable: isRetryable, payloadJSON: payloadJSON ?? json)
    }

    func prefixed(_ context: String) -> VerificationFailure {
        VerificationFailure(category, "\(context): \(detail)", isRetryable: isRetryable, payloadJSON: payloadJSON)
    }

    public var description: String {
        let label: String
        switch category {
        case .format: label = "format"
        case .chain: label = "certificate chain"
        case .signature: label = "signature"
        case .appIdentifier: label = "app identifier"
        case .environment: label = "environment"
        }
        let what = isRetryable ? "could not be verified yet" : "rejected"
        let todo = isRetryable ? "Try again later." : "Nothing was changed."
        return "Signed data \(what) (\(label)): \(detail). \(todo)"
    }
}
