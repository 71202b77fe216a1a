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
