import Foundation
import Glibc
import GripAnalysis
import GripProtocol
import GripSystem

/// What `griptrack record` asks the daemon for.
struct RecordRequest: Sendable {
    var hand: Hand?
    var label: String?
    var save = true
    /// Send STOP after this many seconds (wall clock); nil: until Ctrl-C or the end of the stream.
    var duration: Double?
    /// Each notification's samples as soon as the daemon decodes them (WATCH pace "immediate", protocol 1.3).
    var immediate = false
    /// `--protocol`: the run whose cues the view shows.
    var run: ProtocolRun?
    /// `--speak`: who says the run's cues aloud.
    var speaker: CueSpeaker?
    /// `--direct`: give up when no sample has come after this many seconds, saying why (the daemon's STATUS).
    var connectTimeout: Double?
}

/// How a recording ended.
enum RecordEnd: Equatable, Sendable {
    /// Our STOP was answered.
    case stopped(DaemonMessage.StopReply)
    /// The daemon ended the recording itself (end of stream, shutdown) and said so in `RECORDER`.
    case endedByDaemon(DaemonMessage.RecorderReport)

    /// The free plan's warning the daemon's STOP reply carried (protocol 1.11), when one was saved.
    var warning: String? {
        if case .stopped(let reply) = self { reply.warning } else { nil }
    }

    /// The stored recording's id, when one was saved.
    var savedID: Int64? {
        switch self {
        case .stopped(let reply): reply.event == "saved" ? reply.id : nil
        case .endedByDaemon(let report): report.event == "saved" ? report.id : nil
        }
    }
}

/// Why `griptrack record` could not finish.
enum RecordFailure: Error, Sendable, CustomStringConvertible {
    case client(DaemonClientError)
    /// RECORD refused by the free plan's limit: the policy's text.
    case refused(reason: String)
    /// The daemon closed the connection before the recording ended.
    case daemonWentAway
    /// A second Ctrl-C before the daemon answered STOP.
    case abandoned
    /// `--direct`: no sample within the connect timeout; the radio's problem and the device's state, when known.
    case deviceUnreachable(seconds: Double, problem: String?, state: String?)

    var description: String {
        switch self {
        case .client(let error): error.description
        case .refused(let reason): reason + "\nRun `griptrack record --no-save` for a live-only view."
        case .daemonWentAway:
            "griptrackd went away during the recording (it stopped or crashed); what was recorded up to then is "
                + "kept by the daemon. Check `systemctl status griptrack`."
        case .abandoned:
            "stopped without waiting for griptrackd's answer; it ends the recording when the connection closes."
        case .deviceUnreachable(let seconds, let problem, let state):
            "no sample from the device in \(Int(seconds.rounded())) s: "
                // The radio's own sentence says what to do; without one, the device was not found or stays silent.
                + (problem.map { $0.hasSuffix(".") ? $0 : $0 + "." }
                    ?? ((state == nil || state == "searching" ? "no supported device was found" : "the device is "
                        + (state ?? "unknown") + " but sent nothing")
                        + ". Check that it is on and near; `griptrack devices --scan 5` lists what BlueZ sees."))
                + " Nothing was stored; --connect-timeout waits longer."
        }
    }

    var exit: CLIExit {
        switch self {
        case .client(let error): error.exit
        case .refused: .proRequired
        case .daemonWentAway: .unavailable
        case .abandoned: .error
        case .deviceUnreachable: .unavailable
        }
    }
}

/// The client side of one `griptrack record`: STATUS → RECORD → WATCH → live view → STOP, on one connection.
///
/// The same loop serves all three modes (daemon, `--replay`, `--direct`): the latter two only differ in which
/// socket `connection` is on.
///
/// - Important: runs blocking on the calling thread (poll on the socket and the interrupt pipe); call it off the
///   cooperative pool.
final class RecordSession {
    let connection: DaemonConnection
    let request: RecordRequest
    let view: any RecordView
    let interrupt: InterruptSignal
    private(set) var state = RecordState()
    /// How many of the state's phrases went to the speaker.
    private var phrasesSaid = 0

    /// Redraws are at least this far apart (25 Hz).
    static let redrawInterval: UInt64 = 40_000_000

    init(connection: DaemonConnection, request: RecordRequest, view: any RecordView, interrupt: InterruptSignal) {
        self.connection = connection
        self.request = request
        self.view = view
        self.interrupt = interrupt
        state.run = request.run
    }

    /// Runs the recording to its end.
    /// - Returns: how it ended, and the final state (for the summary).
    func run() throws(RecordFailure) -> RecordEnd {
        do {
            return try runClient()
        } catch let error as RecordFailure {
            throw error
        } catch let error as DaemonClientError {
            throw .client(error)
        } catch {
            throw .client(.connectionLost(reason: "\(error)"))
        }
    }

    private func runClient() throws -> RecordEnd {
        state.apply(.version(connection.version))
        try connection.require(minor: request.immediate ? 3 : 1)
        let status = try connection.request(.status, isReply: { if case .status = $0 { true } else { false } })
        state.apply(status.message)

        let (reply, line) = try connection.request(
            .record(hand: request.hand, label: request.label, save: request.save),
            isReply: { if case .record = $0 { true } else { false } }, other: deliver)
        guard case .record(let record) = reply else { throw DaemonClientError.closed }
        if record.event == "refused" {
            view.show(reply, line: line, state: state, lines: [])
            throw RecordFailure.refused(reason: record.reason ?? "the daemon refused to record")
        }
        deliver(reply, line: line)
        try connection.send(.watch(enable: true, pace: request.immediate ? .immediate : nil))
        return try loop()
    }

    private func deliver(_ message: DaemonMessage, line: String) {
        let lines = state.apply(message)
        if let speaker = request.speaker, state.phrases.count > phrasesSaid {
            for phrase in state.phrases[phrasesSaid...] { speaker.say(phrase) }
            phrasesSaid = state.phrases.count
        }
        view.show(message, line: line, state: state, lines: lines)
    }

    private func loop() throws -> RecordEnd {
        let deadline = request.duration.map { now() + UInt64($0 * 1e9) }
        // --direct: past this without a sample, STATUS is asked why, and its answer ends the recording.
        var connectDeadline = request.connectTimeout.map { now() + UInt64($0 * 1e9) }
        var lastDraw: UInt64 = 0
        var ended: DaemonMessage.RecorderReport?
        while true {
            // Messages already buffered first.
            while let (message, line) = try connection.buffered() {
                deliver(message, line: line)
                switch message {
                case .status(let status) where connectDeadline == 0:
                    throw RecordFailure.deviceUnreachable(
                        seconds: request.connectTimeout ?? 0, problem: status.device?.problem,
                        state: status.device?.state ?? state.device.state)
                case .stop(let reply):
                    return .stopped(reply)
                case .error(let problem):
                    // STOP after the daemon already ended the recording: its RECORDER report is the answer.
                    if let ended { return .endedByDaemon(ended) }
                    throw DaemonClientError.daemon(message: problem.message)
                case .recorder(let report) where isOurs(report):
                    ended = report
                    if !state.stopping { return .endedByDaemon(report) }
                default:
                    break
                }
            }
            let current = now()
            if view.needsRedraw, current - lastDraw >= Self.redrawInterval {
                view.redraw(state)
                lastDraw = current
            }
            if let deadline, current >= deadline, !state.stopping { try sendStop() }
            if state.firstTime != nil {
                connectDeadline = nil
            } else if let due = connectDeadline, due != 0, current >= due {
                try connection.send(.status)
                connectDeadline = 0  // asked: the reply ends it
            }

            var timeout: Int32 = -1
            if view.needsRedraw { timeout = Self.milliseconds(lastDraw + Self.redrawInterval, after: current) }
            if let deadline, !state.stopping {
                let untilDeadline = Self.milliseconds(deadline, after: current)
                timeout = timeout < 0 ? untilDeadline : min(timeout, untilDeadline)
            }
            if let due = connectDeadline, due != 0 {
                let untilDue = Self.milliseconds(due, after: current)
                timeout = timeout < 0 ? untilDue : min(timeout, untilDue)
            }
            var descriptors = [
                pollfd(fd: connection.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: interrupt.readDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            if SystemCall.poll(&descriptors, timeoutMilliseconds: timeout) < 0 {
                throw DaemonClientError.connectionLost(reason: "poll: \(String(cString: strerror(errno)))")
            }
            if descriptors[1].revents != 0, interrupt.drain() > 0 {
                if state.stopping { throw RecordFailure.abandoned }
                try sendStop()
            }
            if descriptors[0].revents != 0 {
                guard try connection.readAvailable() else {
                    if let ended { return .endedByDaemon(ended) }
                    throw RecordFailure.daemonWentAway
                }
            }
        }
    }

    /// A RECORDER report that ends the explicit recording this client started.
    private func isOurs(_ report: DaemonMessage.RecorderReport) -> Bool {
        guard report.explicit == true, report.event == "saved" || report.event == "discarded" else { return false }
        guard let id = state.recordingID, let reported = report.id else { return true }
        return id == reported
    }

    private func sendStop() throws {
        state.stopping = true
        try connection.send(.stop)
        view.redraw(state)
    }

    private func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    private static func milliseconds(_ due: UInt64, after now: UInt64) -> Int32 {
        guard due > now else { return 0 }
        return Int32(min(60_000, (due - now + 999_999) / 1_000_000))
    }
}
