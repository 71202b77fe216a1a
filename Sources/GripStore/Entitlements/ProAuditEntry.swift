import Foundation

/// One line of the audit log of Pro grants and revokes.
public struct ProAuditEntry: Sendable, Equatable {
    /// Grant or revoke.
    public enum Action: String, Sendable, Codable, CaseIterable {
        case grant
        case revoke
    }

    /// Row id, `nil` before it is stored.
    public var id: Int64?
    /// When it happened.
    public var at: Date
    /// Grant or revoke.
    public var action: Action
    /// What caused it: `override` for manual overrides (written by the store), or any name the caller uses
    /// (e.g. `appStore`).
    public var source: String
    /// Who did it (user name, uid, `appStore`).
    public var actor: String
    /// Free text (the override note, the notification type).
    public var note: String?
    /// The expiry granted, if any.
    public var expiresAt: Date?

    /// Creates an audit entry.
    ///
    /// - Parameters: See the properties; dates are stored with millisecond precision.
    public init(
        id: Int64? = nil, at: Date, action: Action, source: String, actor: String, note: String? = nil,
        expiresAt: Date? = nil
    ) {
        self.id = id
        self.at = at
        self.action = action
        self.source = source
        self.actor = actor
        self.note = note
        self.expiresAt = expiresAt
    }
}
