import Foundation

/// A manual Pro grant by an administrator (`griptrack pro grant`), as stored: with who granted it. The resolver
/// reads it as a `GripEntitlements.ManualOverride`.
public struct ManualGrant: Sendable, Equatable {
    /// Why it was granted ("PT partner"), shown in the access reason.
    public var note: String
    /// When it stops granting Pro; `nil` for never. Whether it has expired is the resolver's decision.
    public var expiresAt: Date?
    /// When it was granted.
    public var grantedAt: Date
    /// Who granted it (user name or uid).
    public var grantedBy: String

    /// Creates an override value.
    ///
    /// - Parameters:
    ///   - note: Why it was granted.
    ///   - expiresAt: When it ends, or `nil` for never (millisecond precision).
    ///   - grantedAt: When it was granted (millisecond precision).
    ///   - grantedBy: Who granted it.
    public init(note: String, expiresAt: Date?, grantedAt: Date, grantedBy: String) {
        self.note = note
        self.expiresAt = expiresAt
        self.grantedAt = grantedAt
        self.grantedBy = grantedBy
    }
}
