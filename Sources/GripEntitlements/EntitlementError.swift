/// Errors of the `GripEntitlements` module.
public enum EntitlementError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The verifier's configuration cannot work (e.g. Production without an app Apple ID, an Xcode environment
    /// outside tests, an unparsable trust root, or a bundled root that does not match its pinned fingerprint).
    case invalidConfiguration(String)
    /// A piece of signed data was rejected; see ``VerificationFailure/category``.
    case verificationFailed(VerificationFailure)

    public var description: String {
        switch self {
        case .invalidConfiguration(let detail):
            return "App Store verification is misconfigured: \(detail). Fix the configuration and restart."
        case .verificationFailed(let failure):
            return failure.description
        }
    }
}
