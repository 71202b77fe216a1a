/// A wall-clock date and time as an export writes it, without a time zone (the app writes the phone's local time).
///
/// The CLI turns it into a `Date` in the local time zone; this module stays free of clocks and time zones.
package struct ExportDate: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The year, four digits.
    package var year: Int
    /// The month, 1–12.
    package var month: Int
    /// The day of the month, 1–31, valid for the month.
    package var day: Int
    /// The hour, 0–23 (0 when the file gives no time).
    package var hour: Int
    /// The minute, 0–59.
    package var minute: Int
    /// The second, 0–60 (a leap second is let through).
    package var second: Int

    /// Creates a date from its parts (not validated; the parser validates what it reads).
    ///
    /// - Parameters:
    ///   - year: The year.
    ///   - month: 1–12.
    ///   - day: 1–31.
    ///   - hour: 0–23.
    ///   - minute: 0–59.
    ///   - second: 0–60.
    package init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// `YYYY-MM-DD HH:MM:SS`, the unambiguous order, for messages and output.
    package var description: String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(hour)):\(two(minute)):\(two(second))"
    }

    /// The order of day and month in the date part.
    enum Order {
        /// The Tindeq app: `2023-24-05 19:31:30` is 24 May 2023 (year, day, month).
        case yearDayMonth
        /// griptrack's export and ISO 8601: year, month, day.
        case yearMonthDay
    }

    /// Parses `YYYY-xx-xx`, optionally followed by ` HH:MM` or ` HH:MM:SS` (or `T` instead of the space).
    ///
    /// - Returns: The date, or a message saying what is wrong with it.
    static func parse(_ raw: String, order: Order) -> Result<ExportDate, DateProblem> {
        let text = raw.trimmingSpaces
        let halves = text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == " " || $0 == "T" })
        guard (1...2).contains(halves.count) else { return .failure(.shape(text)) }
        let dateParts = halves[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard dateParts.count == 3, let year = dateParts[0], let a = dateParts[1], let b = dateParts[2],
            halves[0].split(separator: "-")[0].count == 4
        else { return .failure(.shape(text)) }
        let (month, day) = order == .yearDayMonth ? (b, a) : (a, b)
        var clock = [0, 0, 0]
        if halves.count == 2 {
            let parts = halves[1].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
            guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil }) else { return .failure(.shape(text)) }
            for (index, part) in parts.enumerated() { clock[index] = part ?? 0 }
        }
        guard (1...12).contains(month) else { return .failure(.month(text, month, order)) }
        guard (1...daysIn(month: month, year: year)).contains(day) else { return .failure(.day(text, day, order)) }
        guard (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2]) else {
            return .failure(.shape(text))
        }
        return .success(ExportDate(year: year, month: month, day: day, hour: clock[0], minute: clock[1], second: clock[2]))
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    enum DateProblem: Error {
        case shape(String)
        case month(String, Int, Order)
        case day(String, Int, Order)

        var message: String {
            func layout(_ order: Order) -> String {
                order == .yearDayMonth ? "the Tindeq app's YYYY-DD-MM" : "YYYY-MM-DD"
            }
            switch self {
            case .shape(let text): return "date \"\(text)\" is not YYYY-DD-MM HH:MM:SS"
            case .month(let text, let month, let order): return "date \"\(text)\": month \(month) does not exist (read as \(layout(order)))"
            case .day(let text, let day, let order): return "date \"\(text)\": day \(day) does not exist in that month (read as \(layout(order)))"
            }
        }
    }
}
