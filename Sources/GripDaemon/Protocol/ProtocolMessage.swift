import GripAnalysis
import GripProtocol
import GripStream
import GripWire

/// The daemon's side of the socket protocol: its own values (efforts, stream events, stored rows) as the typed
/// messages of GripProtocol (`DaemonMessage`), written as lines. Every line the daemon sends is built here or in
/// the extensions beside it, except SAMPLES (``writeSamples(micros:kilograms:into:)``).
enum ProtocolMessage {
    /// - Parameter database: 1.2: the daemon's database file, when it has one.
    static func version(release: String, database: String? = nil) -> String {
        DaemonMessage.Version(release: release, database: database).line
    }

    static func watch(enabled: Bool, pace: WatchPace) -> String {
        DaemonMessage.WatchReply(enable: enabled, pace: pace.rawValue).line
    }

    /// DEVICE `"event":"state"` (PROTOCOL-1.1): the radio's state, with the address and name once known.
    static func deviceState(_ state: String, address: String?, name: String?) -> String {
        DaemonMessage.DeviceReport(event: "state", state: state, address: address, name: name).line
    }

    /// The reply to TARE once the control-point write succeeded.
    static func tare() -> String {
        DaemonMessage.TareReply(ok: true).line
    }

    /// Stream microseconds as seconds with microsecond precision.
    static func seconds(_ micros: Int64) -> Double { Double(micros) / 1_000_000 }

    /// The line for one non-sample pipeline output, or nil for outputs clients do not see.
    static func event(_ output: StreamOutput) -> String? {
        switch output {
        case .sample, .cells:
            nil
        case .segment(let event):
            segment(event)
        case .device(let event):
            device(event).line
        case .link(let up, let hostMicros):
            DaemonMessage.DeviceReport(event: up ? "connected" : "disconnected", hostTime: seconds(hostMicros)).line
        }
    }

    private static func segment(_ event: SegmentEvent) -> String {
        switch event {
        case .recordingStarted(let start):
            DaemonMessage.RecordingReport(start: seconds(start)).line
        case .effortStarted(let start):
            DaemonMessage.EffortReport(start: seconds(start)).line
        case .effortEnded(let effort):
            DaemonMessage.EffortReport(
                start: seconds(effort.startMicros), end: seconds(effort.endMicros), peakKg: effort.peakKg,
                peakTime: seconds(effort.peakMicros), meanKg: effort.meanKg, timeToPeak: seconds(effort.timeToPeakMicros),
                rfdKgS: effort.rfdKgPerSecond, impulseKgS: effort.impulseKgSeconds, baselineKg: effort.baselineKg,
                open: effort.open, openStart: effort.openStart
            ).line
        case .recordingEnded(let recording):
            DaemonMessage.RecordingReport(
                start: seconds(recording.startMicros), end: seconds(recording.endMicros),
                efforts: recording.efforts.count, maxKg: recording.maxKg, avgKg: recording.averageKg,
                falseStarts: recording.falseStartsDropped
            ).line
        }
    }

    private static func device(_ event: DeviceEvent) -> DaemonMessage.DeviceReport {
        switch event {
        case .batteryMillivolts(let millivolts):
            DaemonMessage.DeviceReport(event: "battery", batteryMv: Int(millivolts))
        case .firmwareVersion(let version):
            DaemonMessage.DeviceReport(event: "firmware", firmware: version)
        case .deviceIdentifier(let identifier):
            DaemonMessage.DeviceReport(event: "identifier", identifier: String(identifier, radix: 16))
        case .commandResponse(let bytes):
            DaemonMessage.DeviceReport(
                event: "response", bytes: bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())
        case .lowPowerWarning:
            DaemonMessage.DeviceReport(event: "low_power")
        }
    }
}
