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
            samples += 1
        case .segment(.recordingEnded(let recording)):
            recordings.append(recording)
        case .segment:
            break
        case .device(.batteryMillivolts(let millivolts)):
            batteryMillivolts = millivolts
        case .device(.firmwareVersion(let version)):
            firmware = version
        case .device(.lowPowerWarning):
            lowPowerWarnings += 1
        case .device:
            break
        case .link(let up, _):
            if up { connects += 1 } else { disconnects += 1 }
        }
    }

    /// The report of the replay that fed this builder.
    package func report(_ outcome: ReplayOutcome) -> ReplayReport {
        let origin = firstSampleMicros ?? 0
        let counters = outcome.counters
        let capture = outcome.capture
        return ReplayReport(
            samples: samples,
            frames: .init(
                total: counters.total, decoded: counters.decoded, dropped: counters.dropped,
                malformed: Dictionary(uniqueKeysWithValues: counters.malformedByReason.map { ($0.key.rawValue, $0.value) })),
            recordings: recordings.map { ReplayReport.RecordingReport($0, origin: origin) },
            forceHandle: .init(handle: hex(outcome.forceHandle), source: outcome.source.rawValue),
            device: .init(
                profile: outcome.profile.identifier, batteryMv: batteryMillivolts, firmware: firmware,
                lowPowerWarnings: lowPowerWarnings, connects: connects, disconnects: disconnects,
                clockEpochs: outcome.clock.epoch + 1, clockWraps: outcome.clock.wraps),
            capture: .init(
                datalink: capture.map { $0.summary.datalink.rawValue }, records: capture?.summary.records ?? 0,
                bytes: capture?.summary.bytes ?? 0, error: capture?.error.map { "\($0)" }))
    }
}
