import GripStore

/// A compact force–time plot for the terminal, drawn with braille characters (2×4 dots per cell), with a kg axis,
/// a time axis, and the efforts marked underneath. No dependency, no colour: it reads on any UTF-8 terminal.
struct ForcePlot {
    var samples: [StoredSample]
    var efforts: [StoredEffort]
    /// Plot area in character cells.
    var columns = 64
    var rows = 10
    /// Scales shared with another plot (`griptrack compare`): the top of the kg axis and the time span (µs) drawn.
    /// `nil`: this plot's own.
    var sharedTopKg: Double?
    var sharedSpanMicros: Double?

    var text: String {
        guard let first = samples.first, let last = samples.last else { return "(no samples stored)\n" }
        // Stored values are input: times anywhere in Int64 and forces anywhere in Float must plot, never trap, so
        // time arithmetic is in Double (a difference of two Int64 may not fit one) and every conversion back to an
        // index is clamped.
        let t0 = Double(first.micros)
        let span = sharedSpanMicros ?? max(1, Double(last.micros) - t0)
        let finite = samples.map(\.kilograms).filter(\.isFinite)
        let top = sharedTopKg ?? Self.niceCeiling(Double(finite.max() ?? 1))
        let bottom = min(0, Double(finite.min() ?? 0).rounded(.down))
        let width = columns * 2
        let height = rows * 4
        var dots = [[Bool]](repeating: [Bool](repeating: false, count: width), count: height)

        func y(_ kg: Float) -> Int {
            let fraction = (Double(kg) - bottom) / (top - bottom)
            return max(0, min(height - 1, height - 1 - Int(clamping: (fraction * Double(height - 1)).rounded())))
        }
        // Per dot column: the range of force inside its time slice, joined to the previous column so the curve is
        // continuous.
        var previous: Int?
        var index = 0
        for x in 0..<width {
            let end = t0 + span * Double(x + 1) / Double(width)
            var low: Int?
            var high: Int?
            while index < samples.count, Double(samples[index].micros) <= end || x == width - 1 {
                let kg = samples[index].kilograms
                index += 1
                guard kg.isFinite else { continue }
                let row = y(kg)
                low = max(low ?? row, row)
                high = min(high ?? row, row)
                if index == samples.count { break }
            }
            guard var lowRow = low, var highRow = high else { continue }
            if let previous {
                lowRow = max(lowRow, previous)
                highRow = min(highRow, previous)
            }
            for row in highRow...lowRow { dots[row][x] = true }
            previous = y(samples[index - 1].kilograms.isFinite ? samples[index - 1].kilograms : 0)
        }

        var lines: [String] = []
        let labelWidth = 6
        for row in 0..<rows {
            var line = ""
            for column in 0..<columns {
                var bits: UInt32 = 0
                let map: [(Int, Int, UInt32)] = [
                    (0, 0, 0x01), (1, 0, 0x02), (2, 0, 0x04), (0, 1, 0x08), (1, 1, 0x10), (2, 1, 0x20),
                    (3, 0, 0x40), (3, 1, 0x80),
                ]
                for (dy, dx, bit) in map where dots[row * 4 + dy][column * 2 + dx] { bits |= bit }
                line.unicodeScalars.append(Unicode.Scalar(0x2800 + bits) ?? " ")
            }
            let label: String
            if row == 0 {
                label = Self.number(top)
            } else if row == rows - 1 {
                label = Self.number(bottom)
            } else if row == rows / 2 {
                label = Self.number((top + bottom) / 2)
            } else {
                label = ""
            }
            lines.append(label.leftPadded(labelWidth - 1) + " ┤" + line)
        }
        lines.append(String(repeating: " ", count: labelWidth) + "└" + String(repeating: "─", count: columns))
        // Time labels at the start, middle and end.
        let seconds = span / 1e6
        var axis = [Character](repeating: " ", count: columns + 8)
        for (position, value) in [(0, 0.0), (columns / 2, seconds / 2), (columns - 1, seconds)] {
            let text = Array(Self.number(value) + (position == columns - 1 ? " s" : ""))
            let start = max(0, min(axis.count - text.count, position - text.count / 2))
            for (offset, character) in text.enumerated() { axis[start + offset] = character }
        }
        lines.append(String(repeating: " ", count: labelWidth + 1) + String(axis).trimmingTrailing())
        // Efforts: a bar under each, numbered.
        if !efforts.isEmpty {
            var marks = [Character](repeating: " ", count: columns)
            for effort in efforts {
                let from = Int(clamping: (Double(effort.startMicros) - t0) / span * Double(columns - 1))
                let to = Int(clamping: (Double(effort.endMicros) - t0) / span * Double(columns - 1))
                let lower = max(0, min(columns - 1, from))
                let upper = max(lower, min(columns - 1, to))
                for column in lower...upper { marks[column] = "▀" }
                let label = Array(String(effort.index + 1))
                if lower + label.count <= columns {
                    for (offset, character) in label.enumerated() { marks[lower + offset] = character }
                }
            }
            lines.append("effort".leftPadded(labelWidth) + " " + String(marks).trimmingTrailing())
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The smallest 1, 2, 5 × 10ⁿ step multiple at or above `value`, so the axis ends on a round number.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let step = niceStep(value / 8)
        return (value / step).rounded(.up) * step
    }

    static func niceStep(_ rough: Double) -> Double {
        let power = pow10((rough).log10Floor)
        for factor in [1.0, 2.0, 5.0, 10.0] where factor * power >= rough { return factor * power }
        return 10 * power
    }

    /// A label: whole numbers without decimals, others to one decimal; a value no plot of a real pull reaches (a
    /// damaged store) as Swift writes a `Double`, never through an `Int` it does not fit.
    static func number(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return String(value) }
        return value == value.rounded() ? String(Int(value)) : String((value * 10).rounded() / 10)
    }

    private static func pow10(_ exponent: Int) -> Double {
        var result = 1.0
        if exponent >= 0 { for _ in 0..<exponent { result *= 10 } } else { for _ in 0 ..< -exponent { result /= 10 } }
        return result
    }
}

extension Double {
    /// ⌊log₁₀ self⌋ for positive values.
    var log10Floor: Int {
        var exponent = 0
        var value = self
        guard value > 0 else { return 0 }
        while value >= 10 { value /= 10; exponent += 1 }
        while value < 1 { value *= 10; exponent -= 1 }
        return exponent
    }
}

extension Int {
    /// `value` rounded toward zero and clamped to what an index into a plot can be; 0 for NaN.
    init(clamping value: Double) {
        guard !value.isNaN else {
            self = 0
            return
        }
        self = Int(Swift.max(-1e15, Swift.min(1e15, value)))
    }
}

extension String {
    func trimmingTrailing() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
