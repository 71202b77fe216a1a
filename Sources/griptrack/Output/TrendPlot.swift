import Foundation
import GripAnalysis

/// A figure's tests over time in the terminal: each test a `●` at its date and value, the least-squares line as
/// `·` where no test is, the value range on the left and the first and last dates below.
struct TrendPlot {
    var points: [(date: Date, value: Double)]
    var width = 48
    var height = 7

    var lines: [String] {
        guard let first = points.map(\.date).min(), let last = points.map(\.date).max(), last > first else { return [] }
        let values = points.map(\.value)
        var low = values.min() ?? 0
        var high = values.max() ?? 1
        // A flat series still gets a band to sit in, so its points land mid-plot rather than on an edge.
        if high - low < 1e-9 { (low, high) = (low - 1, high + 1) }
        let span = last.timeIntervalSince(first)
        func column(_ date: Date) -> Int { min(width - 1, max(0, Int((date.timeIntervalSince(first) / span * Double(width - 1)).rounded()))) }
        func row(_ value: Double) -> Int? {
            let position = (value - low) / (high - low) * Double(height - 1)
            guard position.isFinite, position >= -0.5, position <= Double(height) - 0.5 else { return nil }
            return height - 1 - Int(position.rounded())
        }
        var grid = Array(repeating: Array(repeating: Character(" "), count: width), count: height)
        let seconds = points.map { (x: $0.date.timeIntervalSince(first), y: $0.value) }
        if let weekly = LeastSquares.weeklySlope(seconds.map { (seconds: $0.x, value: $0.y) }) {
            let slope = weekly / LeastSquares.secondsPerWeek
            let meanX = seconds.reduce(0) { $0 + $1.x } / Double(seconds.count)
            let meanY = seconds.reduce(0) { $0 + $1.y } / Double(seconds.count)
            for x in 0..<width {
                let time = Double(x) / Double(width - 1) * span
                if let y = row(meanY + slope * (time - meanX)) { grid[y][x] = "·" }
            }
        }
        for point in points {
            if let y = row(point.value) { grid[y][column(point.date)] = "●" }
        }
        let top = String(format: "%.1f", high)
        let bottom = String(format: "%.1f", low)
        let margin = max(top.count, bottom.count)
        var lines = grid.enumerated().map { index, cells in
            let label = index == 0 ? top : index == height - 1 ? bottom : ""
            // Without trailing blanks: a copied or piped plot carries no invisible spaces.
            var line = label.leftPadded(margin) + " ┤" + String(cells)
            while line.last == " " { line.removeLast() }
            return line
        }
        lines.append(String(repeating: " ", count: margin) + " └" + String(repeating: "─", count: width))
        let from = Format.day(first)
        let to = Format.day(last)
        lines.append(String(repeating: " ", count: margin + 2) + from + to.leftPadded(width - from.count))
        return lines
    }
}
