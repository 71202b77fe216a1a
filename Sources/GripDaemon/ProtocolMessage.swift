import GripAnalysis
import GripStream
import GripWire

/// The daemon's side of the socket protocol: every line it sends (docs/protocol.md).
enum ProtocolMessage {
    /// Protocol version sent in VERSION; bump minor for additions, major for breaking changes.
    static let protoMajor = 1
    static let protoMinor = 6

    /// - Parameter database: 1.2: the daemon's database file, when it has one.
    static func version(release: String, database: String? = nil) -> String {
        var line = JSONLine(class: "VERSION")
        line.add("release", release)
        line.add("proto_major", protoMajor)
        line.add("proto_minor", protoMinor)
        if let database { line.add("database", database) }
        return line.line
    }

    static func error(_ message: String) -> String {
        var line = JSONLine(class: "ERROR")
        line.add("message", message)
        return line.line
    }

    static func watch(enabled: Bool, pace: WatchPace) -> String {
        var line = JSONLine(class: "WATCH")
        line.add("enable", enabled)
        line.add("pace", pace.rawValue)
        return line.line
    }

    /// DEVICE `"event":"state"` (PROTOCOL-1.1): the radio's state, with the address and name once known.
    static func deviceState(_ state: String, address: String?, name: String?) -> String {
        var line = JSONLine(class: "DEVICE")
        line.add("event", "state")
        line.add("state", state)
        if let address { line.add("address", address) }
        if let name { line.add("name", name) }
        return line.line
    }

    /// The reply to TARE once the control-point write succeeded.
    static func tare() -> String {
        var line = JSONLine(class: "TARE")
        line.add("ok", true)
        return line.line
    }

    /// Stream microseconds as seconds with microsecond precision.
    static func seconds(_ micros: Int64) -> Double { Double(micros) / 1_000_000 }

    /// The line for one non-sample pipeline output, or nil for outputs clients do not see.
    static func event(_ output: StreamOutput) -> String? {
        switch output {
        case .sample:
            return nil
        case .segment(let event):
            return segment(event)
        case .device(let event):
            return device(event)
        case .link(let up, let hostMicros):
            var line = JSONLine(class: "DEVICE")
            line.add("event", up ? "connected" : "disconnected")
            line.add("host_time", seconds(hostMicros))
            return line.line
        }
    }

    private static func segment(_ event: SegmentEvent) -> String {
        switch event {
        case .recordingStarted(let start):
            var line = JSONLine(class: "RECORDING")
            line.add("event", "start")
            line.add("start", seconds(start))
            return line.line
        case .effortStarted(let start):
            var line = JSONLine(class: "EFFORT")
            line.add("event", "start")
            line.add("start", seconds(start))
            return line.line
        case .effortEnded(let effort):
            var line = JSONLine(class: "EFFORT")
            line.add("event", "end")
            add(effort, to: &line)
            return line.line
        case .recordingEnded(let recording):
            var line = JSONLine(class: "RECORDING")
            line.add("event", "end")
            line.add("start", seconds(recording.startMicros))
            line.add("end", seconds(recording.endMicros))
            line.add("efforts", recording.efforts.count)
            if let max = recording.maxKg { line.add("max_kg", max) }
            if let average = recording.averageKg { line.add("avg_kg", average) }
            line.add("false_starts", recording.falseStartsDropped)
            return line.line
        }
    }

    private static func add(_ effort: Effort, to line: inout JSONLine) {
        line.add("start", seconds(effort.startMicros))
        line.add("end", seconds(effort.endMicros))
        line.add("peak_kg", effort.peakKg)
        line.add("peak_time", seconds(effort.peakMicros))
        line.add("mean_kg", effort.meanKg)
        line.add("time_to_peak", seconds(effort.timeToPeakMicros))
        if let rfd = effort.rfdKgPerSecond { line.add("rfd_kg_s", rfd) }
        line.add("impulse_kg_s", effort.impulseKgSeconds)
        line.add("baseline_kg", effort.baselineKg)
        line.add("open", effort.open)
        line.add("open_start", effort.openStart)
    }

    private static func device(_ event: DeviceEvent) -> String {
        var line = JSONLine(class: "DEVICE")
        switch event {
        case .batteryMillivolts(let millivolts):
            line.add("event", "battery")
            line.add("battery_mv", Int(millivolts))
        case .firmwareVersion(let version):
            line.add("event", "firmware")
            line.add("firmware", version)
        case .deviceIdentifier(let identifier):
            line.add("event", "identifier")
            line.add("identifier", String(identifier, radix: 16))
        case .commandResponse(let bytes):
            line.add("event", "response")
            line.add("bytes", bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())
        case .lowPowerWarning:
            line.add("event", "low_power")
        }
        return line.line
    }
}
