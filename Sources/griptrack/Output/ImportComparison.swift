import Foundation
import GripAnalysis
import GripStore

/// An imported test's figures side by side: what the app computed, what griptrack computed from the same samples,
/// and the difference (griptrack − app). Used by `import` (before storing) and by `show`.
struct ImportComparison: Encodable {
    /// One headline figure.
    struct Row: Encodable {
        var name: String
        var unit: String
        var app: Double?
        var griptrack: Double?
        var difference: Double? { app.flatMap { app in griptrack.map { $0 - app } } }

        enum CodingKeys: String, CodingKey { case name, unit, app, griptrack, difference }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(unit, forKey: .unit)
            // The app's figure as it wrote it; griptrack's kg figures are float32 forces (their shortest decimal).
            try container.encodeIfPresent(app, forKey: .app)
            try container.encodeIfPresent(unit == "kg" ? griptrack.map(Format.float32Decimal) : griptrack, forKey: .griptrack)
            try container.encodeIfPresent(difference, forKey: .difference)
        }
    }

    /// One rep: the app's figures and the effort griptrack cut at the same place in the order.
    struct Rep: Encodable {
        var set: Int
        var rep: Int
        var appAvgKg: Double?
        var appPeakKg: Double?
        var appMedianKg: Double?
        /// The matching effort (0-based), when griptrack found as many.
        var effortIndex: Int?
        var meanKg: Double?
        var peakKg: Double?
    }

    var source: String
    var fileName: String
    var testType: String
    var testedAt: String
    var tag: String?
    var comment: String?
    var figures: [Row]
    var reps: [Rep]
    var fields: [ImportedFigures.Field]
    var thresholdCrossings: [ImportedFigures.Crossing]

    /// Compares the app's figures with griptrack's efforts and samples.
    ///
    /// - Parameters:
    ///   - figures: The app's figures.
    ///   - efforts: griptrack's efforts of the recording.
    ///   - maxKg: griptrack's max (highest peak of the closed efforts).
    ///   - samples: The recording's samples (for the RFD over the whole series, as the app computes it).
    init(_ figures: ImportedFigures, efforts: [StoredEffort], maxKg: Double?, samples: [StoredSample]) {
        let rfd = figures.rfd2080KilogramsPerSecond == nil
            ? nil : EffortMetrics.rfd2080(of: samples.map { ForceSample(micros: $0.micros, kilograms: $0.kilograms) })
        self.init(figures, efforts: efforts, maxKg: maxKg, wholeSeriesRFD2080: rfd)
    }

    /// Compares the app's figures with griptrack's efforts, given the whole series' RFD 20–80 % (only compared when
    /// the app gave its own).
    init(_ figures: ImportedFigures, efforts: [StoredEffort], maxKg: Double?, wholeSeriesRFD2080: Double?) {
        source = figures.source
        fileName = figures.fileName
        testType = figures.testType
        testedAt = figures.testedAt
        tag = figures.tag
        comment = figures.comment
        fields = figures.fields
        thresholdCrossings = figures.thresholdCrossings
        let closed = efforts.filter { !$0.isOpen }
        let effortSeconds = closed.reduce(0.0) { $0 + Double($1.durationMicros) / 1e6 }
        // The app's "avg" is the mean force over the test, so the comparable figure is the time-weighted mean
        // force of the efforts, not griptrack's recording average (the mean of the effort peaks).
        let meanForce = effortSeconds > 0
            ? closed.reduce(0.0) { $0 + $1.meanKilograms * Double($1.durationMicros) / 1e6 } / effortSeconds : nil
        var rows: [Row] = []
        func add(_ name: String, _ unit: String, _ app: Double?, _ griptrack: Double?) {
            if app != nil { rows.append(Row(name: name, unit: unit, app: app, griptrack: griptrack)) }
        }
        add("max", "kg", figures.maxKilograms, maxKg)
        add("average force", "kg", figures.averageKilograms, meanForce)
        add("duration", "s", figures.durationSeconds, effortSeconds > 0 ? effortSeconds : nil)
        add("RFD 20–80", "kg/s", figures.rfd2080KilogramsPerSecond, wholeSeriesRFD2080)
        add("RFD interval", "kg/s", figures.rfdIntervalKilogramsPerSecond, nil)
        add("critical force", "kg", figures.criticalForceKilograms, nil)
        add("mvc", "kg", figures.mvcKilograms, nil)
        add("body weight", "kg", figures.bodyWeightKilograms, nil)
        if rows.first?.name != "max" && maxKg != nil {
            rows.insert(Row(name: "max", unit: "kg", app: nil, griptrack: maxKg), at: 0)
        }
        self.figures = rows
        let appReps = figures.reps.filter { $0.rep > 0 }.sorted { ($0.set, $0.rep) < ($1.set, $1.rep) }
        reps = appReps.enumerated().map { offset, rep in
            let effort = offset < efforts.count ? efforts[offset] : nil
            return Rep(
                set: rep.set, rep: rep.rep, appAvgKg: rep.averageKilograms, appPeakKg: rep.peakKilograms,
                appMedianKg: rep.medianKilograms, effortIndex: effort?.index,
                meanKg: effort.map { Format.float32Decimal($0.meanKilograms) },
                peakKg: effort.map { Format.float32Decimal($0.peakKilograms) })
        }
    }

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

/// Four decimals: enough to see the app's figures as written (it writes seven) without binary noise in JSON.
