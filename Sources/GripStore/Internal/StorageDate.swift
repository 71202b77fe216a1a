import Foundation
import Glibc
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
    /// 1582, and a date past Int64 milliseconds would not convert.
    static let handWrittenSeconds: Range<Double> = -2_208_988_800..<253_402_300_800

    /// The stored text of `date`.
    static func text(_ date: Date) -> String {
        guard handWrittenSeconds.contains(date.timeIntervalSince1970) else {
            return String.fromDatabaseValue(date.databaseValue) ?? ""
        }
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, millis) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        // Floor division, so a date before 1970 keeps a non-negative millisecond part as DateFormatter gives it.
        let wholeSeconds = millis < 0 ? seconds - 1 : seconds
        let fraction = millis < 0 ? millis + 1000 : millis
        var time = time_t(wholeSeconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var text = ""
        text.reserveCapacity(23)
        append(Int(parts.tm_year) + 1900, digits: 4, to: &text)
        text += "-"
        append(Int(parts.tm_mon) + 1, digits: 2, to: &text)
        text += "-"
        append(Int(parts.tm_mday), digits: 2, to: &text)
        text += " "
        append(Int(parts.tm_hour), digits: 2, to: &text)
        text += ":"
        append(Int(parts.tm_min), digits: 2, to: &text)
        text += ":"
        append(Int(parts.tm_sec), digits: 2, to: &text)
        text += "."
        append(Int(fraction), digits: 3, to: &text)
        return text
    }

    /// `value` with leading zeros to at least `digits` digits.
    private static func append(_ value: Int, digits: Int, to text: inout String) {
        let decimal = String(value)
        if decimal.count < digits { text += String(repeating: "0", count: digits - decimal.count) }
        text += decimal
    }
}
