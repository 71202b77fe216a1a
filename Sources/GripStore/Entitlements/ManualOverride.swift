import Foundation

/// A manual Pro grant by an administrator (`griptrack pro grant`), as stored.
public struct ManualOverride: Sendable, Equatable {
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

extension ManualOverride {
    /// Reads an expiry as people type it (`griptrack pro grant --expires`, the socket's PRO grant): a day
    /// `YYYY-MM-DD` (UTC midnight) or an ISO 8601 date-time.
    ///
    /// - Parameter text: The text.
    /// - Returns: The instant, or `nil` if the text is neither form.
    public static func expiry(from text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, text.count == 10 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))
    }
}
