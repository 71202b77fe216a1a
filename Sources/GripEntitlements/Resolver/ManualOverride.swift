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

extension ManualOverride {
    /// Reads an expiry as people type it (`griptrack pro grant --expires`, the socket's PRO grant): a day
    /// `YYYY-MM-DD` (UTC midnight) or an ISO 8601 date-time.
    ///
    /// - Parameter text: The text.
    /// - Returns: The instant, or `nil` if the text is neither form.
    public static func expiry(from text: String) -> Date? {
        // Both parsers roll an impossible day over into the next month (2027-02-30 became 2027-03-02): the calendar
        // date as written must exist, whatever the time and offset after it.
        guard let day = Self.calendarDay(text.prefix(10)) else { return nil }
        if text.count == 10 { return day }
        return try? Date(text, strategy: .iso8601)
    }

    /// `YYYY-MM-DD` as UTC midnight, or nil when it is not that form or names a day the calendar does not have.
    private static func calendarDay(_ text: Substring) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.count == 10, parts.count == 3, parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        guard let date = calendar.date(from: DateComponents(year: year, month: month, day: day)) else { return nil }
        let back = calendar.dateComponents([.year, .month, .day], from: date)
        guard back.year == year, back.month == month, back.day == day else { return nil }
        return date
    }
}
