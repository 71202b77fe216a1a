import GripAnalysis

/// One imported test: what the Tindeq app (or griptrack's own CSV export) wrote, typed.
///
/// Made by ``parse(_:fileName:)`` from one CSV file, or by ``parseRepeaters(bundle:info:dataSets:)`` from a repeaters
/// bundle (`info.csv` and `data_set_N.csv`). The layouts are described in `docs/import.md`.
package struct TindeqExport: Sendable, Equatable {
    /// Who wrote the file.
    package enum Source: String, Sendable, Codable {
        /// The Tindeq app: one line of field names, one line of values.
        case tindeqApp = "tindeq-app"
        /// `griptrack export --format csv`: one `field,value` line per field.
        case griptrack
    }

    /// The file name as the user gave it (a bundle: the zip or folder).
    package var fileName: String
    /// The app, or griptrack's export.
    package var source: Source
    /// Which test the file holds.
    package var test: TindeqTest
    /// When the test was done, local wall-clock time as written.
    package var date: ExportDate
    /// The app's tag (the name the user gave the test); `nil` when empty.
    package var tag: String?
    /// The app's comment; `nil` when empty.
    package var comment: String?
    /// Every header field in the file's order, as written (the app's own figures among them).
    package var fields: [ExportField]
    /// The app's figures, typed.
    package var figures: AppFigures
    /// The force series: time on the file's timeline (µs; a bundle's sets one after the other), force as written
    /// (kg, to the nearest float); time never goes back. Filled by ``parse(_:fileName:)`` and
    /// ``parseRepeaters(bundle:info:dataSets:)``; empty after a streamed ``read(_:fileName:sample:)``.
    package var samples: [ForceSample]
    /// Where the recording's stream was interrupted (a link drop), as griptrack's export lists them: times on the
    /// file's timeline after which the segmenter is told of an interruption, so an effort cut open there stays open.
    package var linkDrops: [Int64] = []
    /// What the series holds (count, first and last sample, where it ends), filled by every read. Never empty.
    package var series = SeriesSummary()
    /// Stale samples the app left at the head of a series before it started again near 0 s (its buffer from before
    /// the test), dropped rather than the file refused; one entry per file that had them.
    package var droppedHeads: [DroppedHead] = []

    /// The value of a header field, matched without regard to case and surrounding spaces.
    ///
    /// - Parameter name: The field's name, e.g. `"max weight"`.
    /// - Returns: The value as written, or `nil` if the file has no such field.
    package func field(_ name: String) -> String? {
        let wanted = name.lowercased()
        return fields.first { $0.name.trimmingSpaces.lowercased() == wanted }?.value
    }
}

/// Samples at the head of an app export's series that came before the series started again: the app writes its
/// buffer from before the test first (times a few seconds in), then the test from near 0 s.
package struct DroppedHead: Sendable, Equatable {
    /// The file (a bundle: the data set).
    package var file: String
    /// How many samples were dropped.
    package var count: Int
    /// The lines of the first and the last dropped sample.
    package var lines: ClosedRange<Int>
    /// The line where the series starts again.
    package var restartLine: Int

    /// What was dropped and why, for people: "dropped 19 samples (lines 5–23) before the series starts again on
    /// line 24: the app's buffer from before the test".
    package var description: String {
        "\(file): dropped \(count) sample\(count == 1 ? "" : "s") (lines \(lines.lowerBound)–\(lines.upperBound)) before "
            + "the series starts again on line \(restartLine): the app's buffer from before the test"
    }
}

/// The tests the app exports.
package enum TindeqTest: String, Sendable, Codable, CaseIterable {
    /// Peak / max force (`max weight`, `body weight`, …).
    case peak
    /// Endurance (`max`, `avg`, `duration`, `mvc`, target zone).
    case endurance
    /// Rate of force development (`rfd2080`, `rfdInterval`, `intervalTime (ms)`, `IntervalThreshold`).
    case rfd
    /// Repeaters: a bundle of `info.csv` and one `data_set_N.csv` per set, with per-rep Avg and Peak.
    case repeaters
    /// Critical force (`critical force`, `reps`, `Work time`, `Rest time`, median values, threshold crossings).
    case criticalForce = "critical-force"
    /// A recording exported by griptrack itself.
    case recording

    /// How the test is named in output, e.g. "peak force test".
    package var title: String {
        switch self {
        case .peak: "peak force test"
        case .endurance: "endurance test"
        case .rfd: "RFD test"
        case .repeaters: "repeaters"
        case .criticalForce: "critical force test"
        case .recording: "griptrack recording"
        }
    }
}

/// One header field as written.
package struct ExportField: Sendable, Equatable, Codable {
    /// The field's name, e.g. `max weight` or `Target Zone, lower(% of mvc)`.
    package var name: String
    /// Its value as written (empty when the app left it empty).
    package var value: String

    /// Creates a field.
    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The figures the app computed itself, kept beside griptrack's own analysis. `nil` when the file has no such figure
/// (or the app left it empty or wrote `-`).
package struct AppFigures: Sendable, Equatable {
    /// Highest force (kg): `max weight` (peak test), `max` (endurance).
    package var maxKg: Double?
    /// Average force (kg): `avg` (endurance), `avg weight` (griptrack export).
    package var averageKg: Double?
    /// `duration` of an endurance test (s).
    package var durationSeconds: Double?
    /// `mvc`, the maximum voluntary contraction the test was set against (kg).
    package var mvcKg: Double?
    /// `body weight` (kg).
    package var bodyWeightKg: Double?
    /// `rfd2080`: 0.6 · Fmax / (t80 − t20) (kg/s).
    package var rfd2080: Double?
    /// `rfdInterval` (kg/s).
    package var rfdInterval: Double?
    /// `intervalTime (ms)` of the RFD interval.
    package var intervalTimeMillis: Double?
    /// `IntervalThreshold` (kg).
    package var intervalThresholdKg: Double?
    /// `critical force` (kg).
    package var criticalForceKg: Double?
    /// Per-set and per-rep figures: repeaters' Avg and Peak rows, critical force's median values.
    package var reps: [RepFigure] = []
    /// Critical force's `threshold time, threshold weight` pairs.
    package var thresholdCrossings: [ThresholdCrossing] = []

    /// No figures.
    package init() {}
}

/// The app's figures for one rep (or, with `rep == 0`, a whole set).
package struct RepFigure: Sendable, Equatable, Codable {
    /// The set, from 1.
    package var set: Int
    /// The rep in its set, from 1; 0 for the set as a whole (the `Avg` / `Overall Avg` column).
    package var rep: Int
    /// The app's `Avg` row (kg).
    package var averageKg: Double?
    /// The app's `Peak` row (kg).
    package var peakKg: Double?
    /// Critical force's median value of the rep (kg).
    package var medianKg: Double?

    /// Creates a rep's figures.
    package init(set: Int, rep: Int, averageKg: Double? = nil, peakKg: Double? = nil, medianKg: Double? = nil) {
        self.set = set
        self.rep = rep
        self.averageKg = averageKg
        self.peakKg = peakKg
        self.medianKg = medianKg
    }
}

/// A critical-force threshold crossing as the app lists it.
package struct ThresholdCrossing: Sendable, Equatable, Codable {
    /// `threshold time` (s, the file's timeline).
    package var timeSeconds: Double
    /// `threshold weight` (kg).
    package var weightKg: Double

    /// Creates a crossing.
    package init(timeSeconds: Double, weightKg: Double) {
        self.timeSeconds = timeSeconds
        self.weightKg = weightKg
    }
}
