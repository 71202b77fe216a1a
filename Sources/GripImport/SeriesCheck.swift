import GripAnalysis
import GripWire

/// What a read found in a force series, kept when the samples themselves are not (a long file is read as it streams).
package struct SeriesSummary: Sendable, Equatable {
    /// How many samples the series has.
    package var count = 0
    /// The first sample (file timeline, µs and kg).
    package var first: ForceSample?
    /// The last sample.
    package var last: ForceSample?
    /// The file the last sample is in (a bundle: the data set), for a message about where the series ends.
    package var lastFile: String?
    /// The line of the last sample.
    package var lastLine: Int?
    /// The highest force of the series (kg).
    package var maxKg: Float?

    /// No samples.
    package init() {}

    /// `file:line` of the last sample, for messages (the file alone when no sample was read).
    package func lastSampleLocation(orFile file: String) -> (file: String, line: Int?) {
        (lastFile ?? file, lastLine)
    }
}

/// The checks every imported sample passes, whoever wrote the file: time never goes back, every time is reachable
/// from the first one without overflow (so a span, a duration or an end date can always be computed), and the force
/// is one the device can report (its profile's ``DeviceProfile/measurementRangeKg``, the same limits its decoder
/// applies to the radio's frames: an import is input like any frame).
struct SeriesCheck {
    let rangeKg: ClosedRange<Float>
    let deviceName: String
    /// The line of `time origin (us)`, to blame when adding the origin overflows.
    var originLine: Int?
    private(set) var summary = SeriesSummary()
    private var previous: (micros: Int64, text: String, line: Int, file: String)?

    /// - Parameter device: The profile the samples come from; `nil` (unknown) allows what any profile reports.
    init(device: (any DeviceProfile)?) {
        if let device {
            rangeKg = device.measurementRangeKg
            deviceName = "the \(device.name)"
        } else {
            let ranges = DeviceProfiles.all.map(\.measurementRangeKg)
            rangeKg = (ranges.map(\.lowerBound).min() ?? 0)...(ranges.map(\.upperBound).max() ?? 0)
            deviceName = "any device griptrack knows"
        }
    }

    /// Checks one sample and returns it on the file's timeline (`offset` plus its time).
    mutating func accept(
        micros: Int64, offset: Int64, kilograms: Float, timeText: String, weightText: String, line: Int, file: String
    ) throws(GripImportError) -> ForceSample {
        let (time, overflow) = micros.addingReportingOverflow(offset)
        guard !overflow else {
            let cause = originLine.map { "`\(GriptrackCSV.originField)` on line \($0)" } ?? "the sets before it"
            throw GripImportError(
                file: file, line: line,
                "time \(timeText) s is out of range once placed after \(cause): the file is damaged")
        }
        if let first = summary.first {
            let (_, spanOverflow) = time.subtractingReportingOverflow(first.micros)
            guard !spanOverflow else {
                throw GripImportError(
                    file: file, line: line,
                    "time \(timeText) s is too far from the first sample's to be a recording: the file is damaged")
            }
        }
        if let previous, time < previous.micros {
            let place = previous.file == file ? "line \(previous.line)" : "\(previous.file):\(previous.line)"
            throw GripImportError(
                file: file, line: line, "time goes back: \(timeText) s after \(previous.text) s on \(place)")
        }
        guard rangeKg.contains(kilograms) else {
            throw GripImportError(
                file: file, line: line,
                "weight \(weightText) kg is outside what \(deviceName) can measure (\(Self.kg(rangeKg.lowerBound)) to "
                    + "\(Self.kg(rangeKg.upperBound)) kg): the file is damaged; correct or delete the line")
        }
        previous = (time, timeText, line, file)
        let sample = ForceSample(micros: time, kilograms: kilograms)
        if summary.first == nil { summary.first = sample }
        summary.last = sample
        summary.count += 1
        summary.lastFile = file
        summary.lastLine = line
        summary.maxKg = max(summary.maxKg ?? kilograms, kilograms)
        return sample
    }

    /// ``accept(micros:offset:kilograms:timeText:weightText:line:file:)`` for a sample held back as a series' head.
    mutating func accept(
        _ held: TindeqExport.StaleHead.Held, offset: Int64, file: String
    ) throws(GripImportError) -> ForceSample {
        try accept(
            micros: held.micros, offset: offset, kilograms: held.kilograms, timeText: held.timeText,
            weightText: held.weightText, line: held.line, file: file)
    }

    private static func kg(_ value: Float) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
