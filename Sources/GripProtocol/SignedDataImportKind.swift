/// What App Store signed data sent with PRO import is said to be (`kind`, protocol 1.2).
package enum SignedDataImportKind: String, Sendable, CaseIterable {
    /// Told by the payload.
    case auto
    case transaction
    case renewalInfo = "renewal-info"
    case notification
}
