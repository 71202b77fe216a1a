import Foundation

/// Pro granted by hand (`griptrack pro grant`), e.g. for early users or partners.
public struct ManualOverride: Hashable, Sendable, Codable {
    /// Why it was granted, shown in the reason, e.g. `"PT partner"`.
    public var note: String?
    /// When it ends; `nil` means never. An override whose expiry is at or before `now` counts as none.
    public var expires: Date?
    /// When it was granted.
    public var grantedAt: Date

    /// Creates an override.
    ///
    /// - Parameters:
    ///   - note: Why it was granted.
    ///   - expires: When it ends (`nil`: never).
    ///   - grantedAt: When it was granted.
    public init(note: String? = nil, expires: Date? = nil, grantedAt: Date) {
        self.note = note
        self.expires = expires
        self.grantedAt = grantedAt
    }

    /// Whether the override grants Pro at `now` (no expiry, or expiry strictly after `now`).
    ///
    /// - Parameter now: The time to judge at.
    /// - Returns: `true` while it is in force.
    public func isActive(at now: Date) -> Bool {
        guard let expires else { return true }
        return now < expires
    }
}
