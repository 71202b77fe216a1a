import GripAnalysis
import GripProtocol

/// The comparison computed from what the store keeps: the app's figures, griptrack's efforts and samples. Here, in
/// the one module below the CLI and the daemon that knows both, so `griptrack import`, `griptrack show` and the
/// daemon's `SHOW` reply compare the same way.
extension ImportComparison {
    /// Compares the app's figures with griptrack's efforts and samples.
    ///
    /// - Parameters:
    ///   - figures: The app's figures.
    ///   - efforts: griptrack's efforts of the recording.
    ///   - maxKg: griptrack's max (highest peak of the closed efforts).
    ///   - samples: The recording's samples (for the RFD over the whole series, as the app computes it); only read
    ///     when the app gave its own RFD 20–80.
    package init(_ figures: ImportedFigures, efforts: [StoredEffort], maxKg: Double?, samples: [StoredSample]) {
        let rfd = figures.rfd2080KilogramsPerSecond == nil
            ? nil : EffortMetrics.rfd2080(of: samples.map { ForceSample(micros: $0.micros, kilograms: $0.kilograms) })
        self.init(figures, efforts: efforts, maxKg: maxKg, wholeSeriesRFD2080: rfd)
    }

    /// Compares the app's figures with griptrack's efforts, given the whole series' RFD 20–80 % (only compared when
    /// the app gave its own).
    ///
    /// - Parameters:
    ///   - figures: The app's figures.
    ///   - efforts: griptrack's efforts of the recording.
    ///   - maxKg: griptrack's max (highest peak of the closed efforts).
    ///   - wholeSeriesRFD2080: griptrack's RFD 20–80 % over the whole series (kg/s).
    package init(_ figures: ImportedFigures, efforts: [StoredEffort], maxKg: Double?, wholeSeriesRFD2080: Double?) {
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
        let appReps = figures.reps.filter { $0.rep > 0 }.sorted { ($0.set, $0.rep) < ($1.set, $1.rep) }
        let reps = appReps.enumerated().map { offset, rep in
            let effort = offset < efforts.count ? efforts[offset] : nil
            return Rep(
                set: rep.set, rep: rep.rep, appAvgKg: rep.averageKilograms, appPeakKg: rep.peakKilograms,
                appMedianKg: rep.medianKilograms, effortIndex: effort?.index,
                meanKg: effort.map { JSONOutput.float32Decimal($0.meanKilograms) },
                peakKg: effort.map { JSONOutput.float32Decimal($0.peakKilograms) })
        }
        self.init(
            source: figures.source, fileName: figures.fileName, testType: figures.testType, testedAt: figures.testedAt,
            tag: figures.tag, comment: figures.comment, figures: rows, reps: reps,
            fields: figures.fields, thresholdCrossings: figures.thresholdCrossings)
    }
}
