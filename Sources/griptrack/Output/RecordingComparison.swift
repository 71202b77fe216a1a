import Foundation
import GripProtocol
import GripStore

/// Two recordings side by side (`griptrack compare`): the same figures `show` gives for each, and the change from
/// the first to the second, in kg and in % of the first.
struct RecordingComparison: Encodable {
    /// One recording's figures.
    struct Side: Encodable {
        var id: Int64
        var startedAt: String
        var hand: String?
        var label: String?
        var efforts: Int
        /// The stored float32 forces, written as `show --json` writes them (the shortest decimal of the float).
        var maxKg: Float?
        var averageKg: Float?
        var mvc7Kg: Double?
        var bestRfd2080KgS: Double?
        var bestRfd200msKgS: Double?
        var fatigueIndexPercent: Double?

        init(row: RecordingRow, efforts: [StoredEffort], samples: [StoredSample]) {
            let figures = TestFigures(efforts: efforts, samples: samples)
            id = row.id.rawValue
            startedAt = Format.minute(row.startedAt)
            hand = row.hand?.rawValue
            label = row.label
            self.efforts = efforts.count
            maxKg = row.maxKilograms.map(Float.init)
            averageKg = row.averageKilograms.map(Float.init)
            mvc7Kg = figures.mvc7Kg
            bestRfd2080KgS = efforts.compactMap(\.rfdKilogramsPerSecond).max()
            bestRfd200msKgS = figures.bestRfd200msKgS
            fatigueIndexPercent = figures.fatigueIndexPercent
        }
    }

    /// One figure of both, and how it changed.
    struct Row: Encodable {
        var name: String
        var unit: String
        var first: Double?
        var second: Double?
        /// second − first; absent where either is.
        var change: Double?
        /// The change in % of the first; absent where the first is absent or zero.
        var changePercent: Double?

        init(_ name: String, _ unit: String, _ first: Double?, _ second: Double?) {
            self.name = name
            self.unit = unit
            self.first = first
            self.second = second
            if let first, let second {
                change = second - first
                changePercent = first == 0 ? nil : (second - first) / abs(first) * 100
            }
        }
    }

    var first: Side
    var second: Side
    var figures: [Row]

    init(first: Side, second: Side) {
        self.first = first
        self.second = second
        figures = [
            Row("efforts", "", Double(first.efforts), Double(second.efforts)),
            Row("max", "kg", first.maxKg.map { JSONOutput.float32Decimal(Double($0)) }, second.maxKg.map { JSONOutput.float32Decimal(Double($0)) }),
            Row("average", "kg", first.averageKg.map { JSONOutput.float32Decimal(Double($0)) }, second.averageKg.map { JSONOutput.float32Decimal(Double($0)) }),
            Row("MVC-7 (best 7 s mean)", "kg", first.mvc7Kg, second.mvc7Kg),
            Row("best RFD 20–80 %", "kg/s", first.bestRfd2080KgS, second.bestRfd2080KgS),
            Row("best RFD 0–200 ms", "kg/s", first.bestRfd200msKgS, second.bestRfd200msKgS),
            Row("fatigue index", "%", first.fatigueIndexPercent, second.fatigueIndexPercent),
        ]
    }

    /// The header of a side: `#3 2026-11-20 18:01 right hand, “warm-up”`.
    static func heading(_ side: Side) -> String {
        var text = "#\(side.id) \(side.startedAt)"
        if let who = Format.handAndLabel(hand: side.hand, label: side.label) { text += " " + who }
        return text
    }

    var text: String {
        func value(_ number: Double?, _ unit: String) -> String {
            guard let number else { return "—" }
            switch unit {
            case "": return String(Int(number))
            case "kg": return Format.kg(number)
            case "%": return String(format: "%.0f %%", number)
            default: return String(format: "%.0f \(unit)", number)
            }
        }
        func change(_ row: Row) -> String {
            guard let delta = row.change else { return "—" }
            var text: String
            switch row.unit {
            case "": text = String(format: "%+d", Int(delta))
            case "kg": text = Format.signedKg(delta)
            case "%": text = String(format: "%+.0f points", Format.withoutNegativeZero(delta, decimals: 0))
            default: text = String(format: "%+.0f \(row.unit)", Format.withoutNegativeZero(delta, decimals: 0))
            }
            if row.unit != "%", let percent = row.changePercent {
                text += String(format: " (%+.1f %%)", Format.withoutNegativeZero(percent, decimals: 1))
            }
            return text
        }
        var lines = ["A: " + Self.heading(first), "B: " + Self.heading(second), ""]
        let nameWidth = figures.map(\.name.count).max() ?? 0
        lines.append("".padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "            A             B  change B − A")
        for row in figures {
            lines.append(
                row.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
                    + value(row.first, row.unit).leftPadded(13) + value(row.second, row.unit).leftPadded(14)
                    + "  " + change(row))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
