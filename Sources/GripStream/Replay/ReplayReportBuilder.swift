import GripAnalysis
import GripWire

/// Collects pipeline output into a `ReplayReport`.
struct ReplayReportBuilder {
    private let profile: String
    private var firstSampleMicros: Int64?
    private var samples = 0
    private var recordings: [Recording] = []
    private var batteryMillivolts: UInt32?
    private var firmware: String?
    private var lowPowerWarnings = 0
    private var connects = 0
    private var disconnects = 0

    init(profile: String) { self.profile = profile }

    mutating func record(_ output: StreamOutput) {
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

    func report(
        counters: FrameCounters, clock: DeviceClock, forceHandle: ReplayReport.ForceHandle,
        capture: ReplayReport.Capture
    ) -> ReplayReport {
        let origin = firstSampleMicros ?? 0
        return ReplayReport(
            samples: samples,
            frames: .init(
                total: counters.total, decoded: counters.decoded, dropped: counters.dropped,
                malformed: Dictionary(uniqueKeysWithValues: counters.malformedByReason.map { ($0.key.rawValue, $0.value) })),
            recordings: recordings.map { ReplayReport.RecordingReport($0, origin: origin) },
            forceHandle: forceHandle,
            device: .init(
                profile: profile, batteryMv: batteryMillivolts, firmware: firmware,
                lowPowerWarnings: lowPowerWarnings, connects: connects, disconnects: disconnects,
                clockEpochs: clock.epoch + 1, clockWraps: clock.wraps),
            capture: capture)
    }
}
