import Foundation
import GRDB

/// Dates as GRDB stores them, "yyyy-MM-dd HH:mm:ss.SSS" in UTC (to the nearest millisecond), written by hand.
///
/// GRDB formats a `Date` it binds with a Foundation `DateFormatter`, which on Linux is ICU: the first use loads
/// ICU's formatter and its data (page faults into megabytes of the executable), and every use formats through it.
/// The recorder binds a date in each 0.5 s commit (`lastCommitAt`) and when a recording begins, so griptrackd would
/// pay that on its live path all day for twenty-three characters. Same text, byte for byte (tested against GRDB's
/// own encoding), so rows written either way compare and sort alike.
enum StorageDate {
    /// The dates written by hand: 1900 through 9999. Outside them (a date read back from a row another program
    /// wrote, say) the text is GRDB's own: four-digit years end at 9999, ICU switches to the Julian calendar before
    /// 1582, and a date past Int64 milliseconds would not convert. The end is half a millisecond early, so that no
    /// date rounds up into year 10000.
    static let handWrittenSeconds: Range<Double> = -2_208_988_800..<253_402_300_799.9995

    /// The stored text of `date`.
    static func text(_ date: Date) -> String {
        guard handWrittenSeconds.contains(date.timeIntervalSince1970) else {
            return String.fromDatabaseValue(date.databaseValue) ?? ""
        }
        // Half a millisecond rounds up, as Foundation's formatter rounds (floor(ms + 0.5)); `rounded()` would round a
        // tie before 1970 away from zero, a millisecond earlier than GRDB's text.
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down))
        // Floor divisions, so a date before 1970 keeps a non-negative time of day as DateFormatter gives it.
        let (days, millisOfDay) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civilDate(daysSince1970: days)
        let (hour, millisOfHour) = millisOfDay.quotientAndRemainder(dividingBy: 3_600_000)
        let (minute, millisOfMinute) = millisOfHour.quotientAndRemainder(dividingBy: 60_000)
        let (second, millis) = millisOfMinute.quotientAndRemainder(dividingBy: 1_000)
        // Written into the string's own storage (one allocation): the recorder binds one in every 0.5 s commit.
        return String(unsafeUninitializedCapacity: 23) { text in
            var at = 0
            func put(_ value: Int64, digits: Int, then separator: Character?) {
                var rest = value
                for index in stride(from: at + digits - 1, through: at, by: -1) {
                    text[index] = UInt8(truncatingIfNeeded: rest % 10) + UInt8(ascii: "0")
                    rest /= 10
                }
                at += digits
                if let separator {
                    text[at] = separator.asciiValue ?? 0
                    at += 1
                }
            }
            put(year, digits: 4, then: "-")
            put(month, digits: 2, then: "-")
            put(day, digits: 2, then: " ")
            put(hour, digits: 2, then: ":")
            put(minute, digits: 2, then: ":")
            put(second, digits: 2, then: ".")
            put(millis, digits: 3, then: nil)
            return at
        }
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// The proleptic Gregorian date `days` after 1970-01-01: Howard Hinnant's `civil_from_days`, which counts in
    /// 400-year eras from 0000-03-01 so that a leap day ends each year. ICU's calendar is Gregorian from 1582 on,
    /// so this gives its date for every year written by hand here.
    private static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivision(shifted, 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
