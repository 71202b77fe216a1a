import Foundation
import GripAnalysis
import GripProtocol

/// What `griptrack record` shows, folded from the daemon's messages. Pure: no clock, no I/O (times are the
/// stream's, seconds), so the fold and the screen are tested with plain values.
struct RecordState: Equatable, Sendable {
    /// One effort as the daemon reported its end.
    struct EffortLine: Equatable, Sendable {
        var index: Int
        var peakKg: Double
        var meanKg: Double
        var duration: Double
        var open: Bool
    }

    /// The device as last reported (STATUS, then DEVICE events).
    struct Device: Equatable, Sendable {
        var source: String?
        var state: String?
        var name: String?
        var address: String?
        var batteryMillivolts: Int?
    }

    /// The daemon's release and protocol, from VERSION.
    var daemon: String?
    var device = Device()
    /// The entitlement line ("Free: 3 of 5 recordings stored"), from STATUS then RECORD.
    var access: String?
    /// Whether the recording is stored (RECORD `saving`).
    var saving = true
    /// The stored recording's id, once RECORD started it.
    var recordingID: Int64?
    /// Whether RECORD started (the live view runs before that only for a moment).
    var started = false
    /// Latest force (kg) and the highest seen since the recording started.
    var currentKg: Double = 0
    var peakKg: Double = 0
    /// Stream time of the first and latest sample.
    var firstTime: Double?
    var latestTime: Double?
    /// Efforts ended so far, in order.
    var efforts: [EffortLine] = []
    /// Start of the effort in progress, if any.
    var effortInProgress: Double?
    /// The bar's full scale: 30 kg, raised in 10 kg steps so the bar does not jitter.
    var barScaleKg: Double = 30
    /// Set once STOP was sent (Ctrl-C or --duration).
    var stopping = false
    /// The recorder's refusal of a passive recording, if any (RECORDER refused).
    var notice: String?
    /// `record --protocol`: the protocol run, its cue now, and how many phase changes the bell has marked.
    var run: ProtocolRun?
    var cue: ProtocolCue?
    var bells = 0
    /// `record --protocol --speak`: every phrase the cues have said so far, in order (a speaker takes the new ones),
    /// and the count ("3", "2", "1") last said in the current phase.
    var phrases: [String] = []
    var spokenCount: Int?

    /// Seconds of stream since the first sample.
    var elapsed: Double {
        guard let firstTime, let latestTime else { return 0 }
        return max(0, latestTime - firstTime)
    }

    /// The recording's max (highest effort peak) and average (mean of effort peaks) (docs/design.md, "Recordings and scores").
    var maxKg: Double? { efforts.map(\.peakKg).max() }
    var averageKg: Double? {
        efforts.isEmpty ? nil : efforts.map(\.peakKg).reduce(0, +) / Double(efforts.count)
    }

    /// Applies one message.
    /// - Returns: the plain-text lines this message adds to a non-terminal log (efforts, device changes).
    @discardableResult
    mutating func apply(_ message: DaemonMessage) -> [String] {
        switch message {
        case .version(let version):
            daemon = "griptrackd \(version.release), protocol \(version.protoMajor).\(version.protoMinor)"
            return []
        case .status(let status):
            if let reported = status.device {
                device.source = reported.source ?? device.source
                device.state = reported.state ?? device.state
                device.name = reported.name ?? device.name
                device.address = reported.address ?? device.address
                device.batteryMillivolts = reported.batteryMv ?? device.batteryMillivolts
            }
            if let access = status.access { self.access = access.reason }
            return []
        case .record(let reply):
            guard reply.event == "started" else { return [] }
            started = true
            saving = reply.saving ?? true
            recordingID = reply.id
            if let access = reply.access { self.access = access }
            return []
        case .samples(let times, let kilograms):
            guard let last = kilograms.last else { return [] }
            if firstTime == nil { firstTime = times.first }
            latestTime = times.last ?? latestTime
            currentKg = last
            peakKg = max(peakKg, kilograms.max() ?? last)
            while peakKg > barScaleKg { barScaleKg += 10 }
            return advanceCue()
        case .effort(let effort):
            if effort.event == "start" {
                effortInProgress = effort.start
                return []
            }
            guard effort.event == "end" else { return [] }
            effortInProgress = nil
            let line = EffortLine(
                index: efforts.count + 1, peakKg: effort.peakKg.map(Double.init) ?? 0, meanKg: effort.meanKg.map(Double.init) ?? 0,
                duration: effort.duration ?? 0, open: effort.open ?? false)
            efforts.append(line)
            return [Self.plain(line)]
        case .device(let report):
            return applyDevice(report)
        case .recorder(let report):
            if report.event == "refused", let reason = report.reason {
                notice = reason
                return ["recorder: not stored: \(reason)"]
            }
            return []
        case .watch, .recording, .stop, .tare, .pro, .error, .unknown:
            return []
        case .proImport, .plan, .list, .show, .label, .read, .stats, .history, .delete, .web:
            return []  // replies to requests `record` does not make
        }
    }

    /// Moves the protocol's cue to the stream's time; a phase change rings the bell and adds a plain line.
    private mutating func advanceCue() -> [String] {
        guard let run else { return [] }
        let next = run.cue(elapsed: elapsed)
        defer { cue = next }
        speak(next, after: cue, run: run)
        guard let cue else { return [run.text(next)] }
        guard cue.ringsBell(before: next) else { return [] }
        bells += 1
        return [run.text(next)]
    }

    /// The words the web screen's training page speaks (`Assets/training.js`): "get ready" (or "right hand first"
    /// with `alternate`) as the countdown starts, "pull" at each hang, "rest" (with "left hand next" when the hand
    /// changes), "done"; and "3", "2", "1" at the end of the countdown and of each rest longer than the count.
    private mutating func speak(_ next: ProtocolCue, after previous: ProtocolCue?, run: ProtocolRun) {
        if previous.map(ProtocolRun.phase(of:)) != ProtocolRun.phase(of: next) {
            spokenCount = nil
            switch next {
            case .countdown(_, let hand): phrases.append(run.training.alternate ? "\(hand.rawValue) hand first" : "get ready")
            case .hang: phrases.append("pull")
            case .rest(let rep, _):
                var handChanges = false
                if case .hang(let hung, _)? = previous { handChanges = run.training.alternate && hung.hand != rep.hand }
                phrases.append(handChanges ? "rest, \(rep.hand.rawValue) hand next" : "rest")
            case .done: phrases.append("done")
            }
        }
        guard let timing = run.countdown(next) else { return }
        let whole = Int((timing.remaining + 999_999) / 1_000_000)
        // Not over the word that opens the phase ("rest" in a 3 s rest): the count starts below the phase's length.
        if (1...3).contains(whole), whole < Int((timing.length + 999_999) / 1_000_000), spokenCount != whole {
            spokenCount = whole
            phrases.append(String(whole))
        }
    }

    private mutating func applyDevice(_ report: DaemonMessage.DeviceReport) -> [String] {
        switch report.event {
        case "state":
            let changed = report.state != device.state
            device.state = report.state ?? device.state
            device.name = report.name ?? device.name
            device.address = report.address ?? device.address
            guard changed, let state = report.state else { return [] }
            let who = [report.name, report.address].compactMap { $0 }.joined(separator: " ")
            return ["device: \(state)" + (who.isEmpty ? "" : " (\(who))")]
        case "connected", "disconnected":
            let changed = report.event != device.state
            device.state = report.event
            return changed ? ["device: \(report.event)"] : []
        case "battery":
            guard let millivolts = report.batteryMv else { return [] }
            let first = device.batteryMillivolts == nil
            device.batteryMillivolts = millivolts
            return first ? ["device: battery \(Self.volts(millivolts))"] : []
        case "low_power":
            return ["device: low battery; it will disconnect soon"]
        default:
            return []
        }
    }

    /// `effort 2: peak 30.1 kg, mean 24.0 kg, 3.2 s` (plus `(open)` when the stream ended mid-effort).
    static func plain(_ effort: EffortLine) -> String {
        String(format: "effort %d: peak %.1f kg, mean %.1f kg, %.1f s", effort.index, effort.peakKg, effort.meanKg,
               effort.duration) + (effort.open ? " (open)" : "")
    }

    /// `3.92 V`.
    static func volts(_ millivolts: Int) -> String { String(format: "%.2f V", Double(millivolts) / 1000) }
}
