import GripAnalysis
import GripStream
import GripWire

/// The replay's sink (`StreamSink`): collects the pipeline's outputs into a `ReplayReport`, and passes each on to an
/// observer when there is one (the live readout, a recorder).
package struct ReplayReportBuilder: StreamSink {
    private let observer: ((StreamOutput, _ hostMicros: Int64) -> Void)?
    private var firstSampleMicros: Int64?
    private var samples = 0
    private var recordings: [Recording] = []
    private var batteryMillivolts: UInt32?
    private var firmware: String?
    private var lowPowerWarnings = 0
    private var connects = 0
    private var disconnects = 0
    private var lastSampleMicros: Int64?
    /// A board's cells per sample since the last recording ended (only a device with cells sends them: appending
    /// allocates now and then, for the Motherboard alone).
    private var cellSamples: [(micros: Int64, cells: CellForces)] = []
    /// Per recording, its efforts' cells; nil for a recording of a one-cell device.
    private var recordingCells: [[ReplayReport.CellsReport?]?] = []

    /// - Parameter observer: called on the consuming thread with every output and its host time, in order; nil
    ///   makes no call per output at all.
    package init(observer: ((StreamOutput, _ hostMicros: Int64) -> Void)? = nil) { self.observer = observer }

    // HOT PATH: no allocation, lock, syscall or log (a recording's end appends to `recordings`, once per recording)
    package mutating func consume(_ output: StreamOutput, hostMicros: Int64) {
        record(output)
        observer?(output, hostMicros)
    }

    private mutating func record(_ output: StreamOutput) {
        switch output {
        case .sample(let micros, _):
            if firstSampleMicros == nil { firstSampleMicros = micros }
            lastSampleMicros = micros
            samples += 1
        case .segment(.recordingEnded(let recording)):
            recordings.append(recording)
            if !cellSamples.isEmpty {
                recordingCells.append(recording.efforts.map { Self.cells(of: $0, in: cellSamples) })
                cellSamples.removeAll { $0.micros <= recording.endMicros }
            } else {
                recordingCells.append(nil)
            }
        case .segment:
            break
        case .device(.batteryMillivolts(let millivolts)):
            batteryMillivolts = millivolts
        case .device(.firmwareVersion(let version)):
            firmware = version
        case .device(.lowPowerWarning):
            lowPowerWarnings += 1
        case .cells(let cells):
            if let micros = lastSampleMicros { cellSamples.append((micros, cells)) }
        case .device:
            break
        case .link(let up, _):
            if up { connects += 1 } else { disconnects += 1 }
        }
    }

    /// An effort's cells: each cell's mean over the samples inside it, and the asymmetry of left and right.
    private static func cells(
        of effort: Effort, in samples: [(micros: Int64, cells: CellForces)]
    ) -> ReplayReport.CellsReport? {
        var sums = (left: 0.0, centre: 0.0, right: 0.0)
        var count = 0
        for sample in samples where sample.micros >= effort.startMicros && sample.micros <= effort.endMicros {
            sums.left += Double(sample.cells.left)
            sums.centre += Double(sample.cells.centre)
            sums.right += Double(sample.cells.right)
            count += 1
        }
        guard count > 0 else { return nil }
        let n = Double(count)
        return ReplayReport.CellsReport(
            leftMeanKg: sums.left / n, centreMeanKg: sums.centre / n, rightMeanKg: sums.right / n,
            asymmetry: Asymmetry.index(leftKg: sums.left / n, rightKg: sums.right / n))
    }

    /// The report of the replay that fed this builder.
    package func report(_ outcome: ReplayOutcome) -> ReplayReport {
        let origin = firstSampleMicros ?? 0
        let counters = outcome.counters
        let capture = outcome.capture
        let timingLeftOut = EffortMetrics.timingLeftOut(
            resolutionKg: outcome.profile.resolutionKg, device: outcome.profile.name)
        var reports = recordings.map { ReplayReport.RecordingReport($0, origin: origin) }
        for (recording, cells) in zip(reports.indices, recordingCells) {
            guard let cells else { continue }
            for (effort, report) in zip(reports[recording].efforts.indices, cells) {
                reports[recording].efforts[effort].cells = report
            }
        }
        if timingLeftOut != nil {
            for recording in reports.indices {
                for effort in reports[recording].efforts.indices {
                    reports[recording].efforts[effort].timeToPeakS = nil
                    reports[recording].efforts[effort].rfdKgS = nil
                }
            }
        }
        return ReplayReport(
            samples: samples,
            frames: .init(
                total: counters.total, decoded: counters.decoded, dropped: counters.dropped,
                malformed: Dictionary(uniqueKeysWithValues: counters.malformedByReason.map { ($0.key.rawValue, $0.value) })),
            recordings: reports,
            forceHandle: .init(handle: hex(outcome.forceHandle), source: outcome.source.rawValue),
            device: .init(
                profile: outcome.profile.identifier, batteryMv: batteryMillivolts, firmware: firmware,
                lowPowerWarnings: lowPowerWarnings, connects: connects, disconnects: disconnects,
                clockEpochs: outcome.clock.epoch + 1, clockWraps: outcome.clock.wraps, timingLeftOut: timingLeftOut,
                lostReports: outcome.lostReports),
            capture: .init(
                datalink: capture.map { $0.summary.datalink.rawValue }, records: capture?.summary.records ?? 0,
                bytes: capture?.summary.bytes ?? 0, error: capture?.error.map { "\($0)" }))
    }
}
