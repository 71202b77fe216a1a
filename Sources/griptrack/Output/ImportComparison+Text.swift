import Foundation
import GripProtocol

/// How `griptrack import` and `show` print the comparison (GripProtocol's ``ImportComparison``, computed by GripStore).
extension ImportComparison {
    /// The comparison as text, for `show` and `import`.
    var text: String {
        var lines: [String] = []
        var title = "Tindeq app export: \(Self.testTitle(testType)), \(testedAt)"
        if source == "griptrack" { title = "griptrack export: \(Self.testTitle(testType)), \(testedAt)" }
        if let tag { title += ", tag \"\(tag)\"" }
        lines.append(title + " (\(fileName))")
        if let comment { lines.append("comment: \(comment)") }
        if !figures.isEmpty {
            lines.append("                            app    griptrack   difference")
            for row in figures {
                var line = "  " + row.name.padding(toLength: 16, withPad: " ", startingAt: 0)
                line += Self.value(row.app, row.unit).leftPadded(13) + Self.value(row.griptrack, row.unit).leftPadded(13)
                line += Self.signed(row.difference, row.unit).leftPadded(13)
                lines.append(line)
            }
        }
        if !reps.isEmpty {
            let medians = reps.contains { $0.appMedianKg != nil }
            lines.append("")
            lines.append(medians
                ? "  set  rep  app median   griptrack mean   difference"
                : "  set  rep    app avg  griptrack mean  difference    app peak  griptrack peak  difference")
            for rep in reps {
                var line = String(rep.set).leftPadded(5) + String(rep.rep).leftPadded(5)
                if medians {
                    line += Self.value(rep.appMedianKg, "kg").leftPadded(12) + Self.value(rep.meanKg, "kg").leftPadded(17)
                    line += Self.signed(Self.minus(rep.meanKg, rep.appMedianKg), "kg").leftPadded(13)
                } else {
                    line += Self.value(rep.appAvgKg, "kg").leftPadded(11) + Self.value(rep.meanKg, "kg").leftPadded(16)
                    line += Self.signed(Self.minus(rep.meanKg, rep.appAvgKg), "kg").leftPadded(12)
                    line += Self.value(rep.appPeakKg, "kg").leftPadded(12) + Self.value(rep.peakKg, "kg").leftPadded(16)
                    line += Self.signed(Self.minus(rep.peakKg, rep.appPeakKg), "kg").leftPadded(12)
                }
                lines.append(line)
            }
            if reps.count != reps.compactMap(\.effortIndex).count {
                lines.append("  (griptrack cut fewer efforts than the app lists reps: the last reps have no match)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func testTitle(_ type: String) -> String {
        switch type {
        case "peak": "peak force test"
        case "endurance": "endurance test"
        case "rfd": "RFD test"
        case "repeaters": "repeaters"
        case "critical-force": "critical force test"
        case "recording": "recording"
        default: type
        }
    }

    static func value(_ value: Double?, _ unit: String) -> String {
        value.map { String(format: "%.2f", $0) + " " + unit } ?? "—"
    }

    /// `+0.12 kg`; a difference that rounds to nothing is `+0.00`, never `-0.00`.
    static func signed(_ value: Double?, _ unit: String) -> String {
        value.map { String(format: "%+.2f", Format.withoutNegativeZero($0, decimals: 2)) + " " + unit } ?? "—"
    }

    static func minus(_ a: Double?, _ b: Double?) -> Double? {
        guard let a, let b else { return nil }
        return a - b
    }
}

