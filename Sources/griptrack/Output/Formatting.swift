import Foundation
import GripAnalysis
import GripStore

/// Text formatting shared by the commands: local times, kilograms, durations.
enum Format {
    /// `2026-01-04 10:12` in the local time zone.
    static func minute(_ date: Date) -> String { formatter("yyyy-MM-dd HH:mm").string(from: date) }

    /// `2026-01-04 10:12:03` in the local time zone.
    static func second(_ date: Date) -> String { formatter("yyyy-MM-dd HH:mm:ss").string(from: date) }

    /// `right hand, “warm-up”`: what the person said about a recording, or nil when nothing.
    static func handAndLabel(hand: String?, label: String?) -> String? {
        let parts = [hand.map { "\($0) hand" }, label.map { "“\($0)”" }].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// `Ana (62.0 kg), right hand, half crimp, 20 mm edge, “test”, protocol repeaters 6x 7:3 @80% (max 27.0 kg)`:
    /// everything said about who pulled and how, or nil.
    static func who(_ row: RecordingRow) -> String? {
        let setup = row.setup
        var athlete = setup.athlete
        if let weight = setup.bodyWeightKilograms {
            athlete = (athlete.map { $0 + " " } ?? "body weight ") + "(\(kg(weight)))"
        }
        var protocolText = setup.protocolNotation.map { "protocol " + $0 }
        if let text = protocolText, let max = setup.protocolMaxKilograms { protocolText = text + " (max \(kg(max)))" }
        let parts = [
            athlete, row.hand.map { $0 == .both ? "both hands" : "\($0.rawValue) hand" }, setup.grip,
            setup.edgeMillimetres.map { String(format: "%g mm edge", $0) }, row.label.map { "“\($0)”" }, protocolText,
        ].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// `2026-01-04 18:30:12.345` in the local time zone: for events that can come seconds apart (sync attempts).
    static func millisecond(_ date: Date) -> String { formatter("yyyy-MM-dd HH:mm:ss.SSS").string(from: date) }

    /// `2026-01-04` in the local time zone.
    static func day(_ date: Date) -> String { formatter("yyyy-MM-dd").string(from: date) }

    /// `41.2 kg`, or `—`.
    static func kg(_ value: Double?) -> String { value.map { String(format: "%.1f kg", $0) } ?? "—" }

    /// `+1.2 kg` / `-0.4 kg`, or `—`.
    static func signedKg(_ value: Double?) -> String {
        value.map { String(format: "%+.1f kg", withoutNegativeZero($0, decimals: 1)) } ?? "—"
    }

    /// `value`, or +0 when it rounds to zero at `decimals` places: printf writes `-0.00` for a tiny negative
    /// difference, which reads as a loss where there is none.
    static func withoutNegativeZero(_ value: Double, decimals: Int) -> Double {
        let scale = (0..<decimals).reduce(1.0) { product, _ in product * 10 }
        return (value * scale).rounded() == 0 ? 0 : value
    }

    /// ``kg(_:)`` for a float32 force.
    static func kg(_ value: Float?) -> String { kg(value.map(Double.init)) }

    /// A sensor's correction as `show`, `status` and `calibrate` write it: `× 1.0312, −0.15 kg`.
    static func correction(_ correction: ForceCorrection) -> String {
        String(format: "× %.4f, %+.2f kg", correction.scale, withoutNegativeZero(correction.offsetKilograms, decimals: 2))
    }

    /// ``signedKg(_:)`` for a float32 force.
    static func signedKg(_ value: Float?) -> String { signedKg(value.map(Double.init)) }

    /// `1:05` (minutes:seconds) or `42 s`.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole < 60 ? "\(whole) s" : String(format: "%d:%02d", whole / 60, whole % 60)
    }

    /// Local days since 1970-01-01 (the day key for trends).
    static func dayKey(_ date: Date) -> Int {
        let seconds = date.timeIntervalSince1970 + Double(TimeZone.current.secondsFromGMT(for: date))
        return Int((seconds / 86_400).rounded(.down))
    }

    /// The local calendar date of a day key.
    static func dayString(_ key: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let date = Date(timeIntervalSince1970: Double(key) * 86_400)
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    private static func formatter(_ pattern: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        formatter.dateFormat = pattern
        return formatter
    }
}

extension String {
    /// Right-aligned in `width` columns (counted in characters).
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }

    /// Left-aligned in `width` columns.
    func rightPadded(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}

/// A force for JSON output. Stored forces are the device's float32 values widened to double, so narrowing them
/// back is exact, and the encoder writes the shortest decimal that reads back as that float32: machine output
/// never rounds (docs/replay-json.md). Derived values (averages, differences) are float32 like the forces.
func jsonKg(_ value: Double?) -> Float? { value.map { Float($0) } }

/// ``jsonKg(_:)`` for a value that is always there.
func jsonKg(_ value: Double) -> Float { Float(value) }
