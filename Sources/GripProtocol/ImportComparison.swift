/// An imported test's figures side by side: what the other app computed, what griptrack computed from the same
/// samples, and the difference (griptrack − app).
///
/// One type wherever the comparison goes: `griptrack import` and `show` print it (text and `--json`'s `imported`),
/// the `SHOW` reply carries it (protocol 1.9, docs/protocol.md) and the web app's recording page shows it. GripStore
/// computes it from the stored figures (`init(_:efforts:maxKg:samples:)`), so every reader compares the same way.
package struct ImportComparison: Codable, Equatable, Sendable, ProtocolFields {
    /// One headline figure.
    package struct Row: Codable, Equatable, Sendable, ProtocolFields {
        package var name: String
        package var unit: String
        /// The app's figure as it wrote it.
        package var app: Double?
        /// griptrack's figure; a kg figure is a float32 force, kept as its shortest decimal.
        package var griptrack: Double?
        /// griptrack − app, from griptrack's figure before it was shortened.
        package var difference: Double?

        /// A figure from both sides; the difference is taken here, the float32 shortening after it.
        ///
        /// - Parameters:
        ///   - name: What the figure is (`max`, `average force`, …).
        ///   - unit: `kg`, `s` or `kg/s`.
        ///   - app: The app's value.
        ///   - griptrack: griptrack's value, as computed.
        package init(name: String, unit: String, app: Double?, griptrack: Double?) {
            self.name = name
            self.unit = unit
            self.app = app
            self.griptrack = unit == "kg" ? griptrack.map(JSONOutput.float32Decimal) : griptrack
            difference = app.flatMap { app in griptrack.map { $0 - app } }
        }

        package func write(to fields: inout JSONLine) {
            fields.add("name", name)
            fields.add("unit", unit)
            fields.add("app", app)
            fields.add("griptrack", griptrack)
            fields.add("difference", difference)
        }
    }

    /// One rep: the app's figures and the effort griptrack cut at the same place in the order.
    package struct Rep: Codable, Equatable, Sendable, ProtocolFields {
        /// From 1.
        package var set: Int
        /// From 1.
        package var rep: Int
        package var appAvgKg: Double?
        package var appPeakKg: Double?
        package var appMedianKg: Double?
        /// The matching effort (0-based), when griptrack found as many.
        package var effortIndex: Int?
        /// The matching effort's mean and peak force (float32, as their shortest decimal).
        package var meanKg: Double?
        package var peakKg: Double?

        /// - Parameters: See the properties.
        package init(
            set: Int, rep: Int, appAvgKg: Double?, appPeakKg: Double?, appMedianKg: Double?, effortIndex: Int?,
            meanKg: Double?, peakKg: Double?
        ) {
            self.set = set
            self.rep = rep
            self.appAvgKg = appAvgKg
            self.appPeakKg = appPeakKg
            self.appMedianKg = appMedianKg
            self.effortIndex = effortIndex
            self.meanKg = meanKg
            self.peakKg = peakKg
        }

        package func write(to fields: inout JSONLine) {
            fields.add("set", set)
            fields.add("rep", rep)
            fields.add("app_avg_kg", appAvgKg)
            fields.add("app_peak_kg", appPeakKg)
            fields.add("app_median_kg", appMedianKg)
            fields.add("effort_index", effortIndex)
            fields.add("mean_kg", meanKg)
            fields.add("peak_kg", peakKg)
        }
    }

    /// One header field of the file, as written.
    package struct Field: Codable, Equatable, Sendable, ProtocolFields {
        package var name: String
        /// Empty when the file left it empty.
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }

        package func write(to fields: inout JSONLine) {
            fields.add("name", name)
            fields.add("value", value)
        }
    }

    /// A threshold crossing of a critical force test: time (s, the file's timeline) and force (kg).
    package struct Crossing: Codable, Equatable, Sendable, ProtocolFields {
        package var timeSeconds: Double
        package var weightKilograms: Double

        package init(timeSeconds: Double, weightKilograms: Double) {
            self.timeSeconds = timeSeconds
            self.weightKilograms = weightKilograms
        }

        package func write(to fields: inout JSONLine) {
            fields.add("time_seconds", timeSeconds)
            fields.add("weight_kilograms", weightKilograms)
        }
    }

    /// `tindeq-app`, or `griptrack` for griptrack's own CSV export.
    package var source: String
    /// The file (or bundle) name, without the path it was imported from.
    package var fileName: String
    /// `peak`, `endurance`, `rfd`, `repeaters`, `critical-force` or `recording`.
    package var testType: String
    /// Local wall-clock `YYYY-MM-DD HH:MM:SS`, as the file dates the test.
    package var testedAt: String
    package var tag: String?
    package var comment: String?
    /// The headline figures the app gave (and griptrack's max even when the app gave none).
    package var figures: [Row]
    /// The app's reps in order, each beside the effort at the same place.
    package var reps: [Rep]
    /// Every header field in the file's order.
    package var fields: [Field]
    package var thresholdCrossings: [Crossing]

    /// - Parameters: See the properties.
    package init(
        source: String, fileName: String, testType: String, testedAt: String, tag: String?, comment: String?,
        figures: [Row], reps: [Rep], fields: [Field], thresholdCrossings: [Crossing]
    ) {
        self.source = source
        self.fileName = fileName
        self.testType = testType
        self.testedAt = testedAt
        self.tag = tag
        self.comment = comment
        self.figures = figures
        self.reps = reps
        self.fields = fields
        self.thresholdCrossings = thresholdCrossings
    }

    package func write(to fields: inout JSONLine) {
        fields.add("source", source)
        fields.add("file_name", fileName)
        fields.add("test_type", testType)
        fields.add("tested_at", testedAt)
        fields.add("tag", tag)
        fields.add("comment", comment)
        fields.add("figures", objects: figures)
        fields.add("reps", objects: reps)
        fields.add("fields", objects: self.fields)
        fields.add("threshold_crossings", objects: thresholdCrossings)
    }
}
