import Foundation

/// An expiry as people type it: the `--expires` of `griptrack pro grant` and the socket's PRO grant `expires`.
package enum ExpiryText {
    /// Reads a day `YYYY-MM-DD` (UTC midnight) or an ISO 8601 date-time.
    ///
    /// - Parameter text: The text.
    /// - Returns: The instant, or `nil` if the text is neither form.
    package static func date(from text: String) -> Date? {
        // Both parsers roll an impossible day over into the next month (2027-02-30 became 2027-03-02): the calendar
        // date as written must exist, whatever the time and offset after it.
        guard let day = Self.calendarDay(text.prefix(10)) else { return nil }
        if text.count == 10 { return day }
        return try? Date(text, strategy: .iso8601)
    }

    /// `YYYY-MM-DD` as UTC midnight, or nil when it is not that form or names a day the calendar does not have.
    private static func calendarDay(_ text: Substring) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        // Exactly 4-2-2 digits (not merely ten characters: "14012-3-01" was read as year 14012, which cannot be
        // written back).
        guard parts.map(\.count) == [4, 2, 2],
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        guard let date = calendar.date(from: DateComponents(year: year, month: month, day: day)) else { return nil }
        let back = calendar.dateComponents([.year, .month, .day], from: date)
        guard back.year == year, back.month == month, back.day == day else { return nil }
        return date
    }
}
