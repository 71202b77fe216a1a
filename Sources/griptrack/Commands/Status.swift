import ArgumentParser
import Foundation
import GripConfig
import GripEntitlements
import GripProtocol
import GripAnalysis
import GripStore
import GripSystem

extension Griptrack {
    /// `griptrack status`: the daemon, the device, the recorder and the plan, from griptrackd's STATUS.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show griptrackd's state: device, recording, plan.",
            discussion: """
                Asks griptrackd (--socket, default /run/griptrack/griptrack.sock) for its status. When the daemon \
                is not running, it shows the plan from the personal database (--db) instead, says so, and exits 4.
                """
        )

        @Option(help: ArgumentHelp("griptrackd's socket (default: /run/griptrack/griptrack.sock).", valueName: "path"))
        var socket: String?

        @OptionGroup var common: CommonOptions

        func run() async throws {
            // An invalid file is reported before anything else: the plan shown without a daemon depends on it, and
            // griptrackd refuses to start with it.
            let config = try common.loadConfig()
            let path = socket ?? DaemonSocket.defaultPath
            let answer = await NamedThread.run(name: "gt-client") { Self.ask(path: path) }
            switch answer {
            case .success(let (version, status)):
                let report = StatusReport(socket: path, version: version, status: status)
                if common.json { try printJSON(report) } else { print(report.text, terminator: "") }
            case .failure(let error):
                var report = StatusReport(socket: path, unreachable: error)
                report.localPlan = Self.localPlan(common, config: config)
                if common.json { try printJSON(report) } else { print(report.text, terminator: "") }
                throw error.exit.fail(error.description)
            }
        }

        /// VERSION and STATUS from the daemon; blocking.
        static func ask(path: String) -> Result<(DaemonMessage.Version, DaemonMessage.StatusReply), DaemonClientError> {
            do {
                let connection = try DaemonConnection(path: path)
                defer { connection.close() }
                let (reply, _) = try connection.request(.status, isReply: {
                    if case .status = $0 { true } else { false }
                })
                guard case .status(let status) = reply else { return .failure(.closed) }
                return .success((connection.version, status))
            } catch {
                return .failure(error)
            }
        }

        /// The plan as the personal database sees it, when it can be read.
        static func localPlan(_ common: CommonOptions, config: GriptrackConfig) -> StatusReport.LocalPlan? {
            guard FileManager.default.fileExists(atPath: common.databasePath),
                  let store = try? RecordingStore(path: common.databasePath) else { return nil }
            let context = AccessContext(bypass: config.entitlements.bypass)
            guard let status = try? store.accessStatus(context, now: Date()) else { return nil }
            return StatusReport.LocalPlan(
                database: common.databasePath, pro: status.access.isPro, reason: status.access.reason,
                stored: status.storedRecordings, limit: status.freeLimit, storage: status.freeStorage,
                warning: status.freeWarning)
        }
    }
}

/// What `griptrack status` prints (text and `--json`).
struct StatusReport: Encodable {
    struct Daemon: Encodable {
        var running: Bool
        var socket: String
        var release: String?
        var proto: String?
        var error: String?
    }

    // The daemon's STATUS objects, passed through as they were decoded.
    typealias Device = DaemonMessage.StatusReply.Device
    typealias Recording = DaemonMessage.StatusReply.Recorder
    typealias Plan = DaemonMessage.AccessObject

    /// The personal database's view of the plan, shown when the daemon is down.
    struct LocalPlan: Encodable {
        var database: String
        var pro: Bool
        var reason: String
        var stored: Int
        var limit: Int
        var storage: String?
        var warning: String?
    }

    var daemon: Daemon
    var device: Device?
    var recording: Recording?
    var plan: Plan?
    var localPlan: LocalPlan?
    var clients: DaemonMessage.StatusReply.Clients?
    var sync: DaemonMessage.StatusReply.Sync?

    init(socket: String, version: DaemonMessage.Version, status: DaemonMessage.StatusReply) {
        daemon = Daemon(running: true, socket: socket, release: version.release,
                        proto: "\(version.protoMajor).\(version.protoMinor)")
        device = status.device
        recording = status.recorder
        plan = status.access
        clients = status.clients
        sync = status.sync
    }

    init(socket: String, unreachable error: DaemonClientError) {
        // A refusal comes from a daemon that is running: saying "not running" sent people to restart it.
        if case .notAuthorized = error {
            daemon = Daemon(running: true, socket: socket, error: error.description)
        } else {
            daemon = Daemon(running: false, socket: socket, error: error.description)
        }
    }

    /// Aligned `Label: value` lines.
    var text: String {
        var lines: [(String, String)] = []
        if daemon.running && daemon.release == nil {
            lines.append(("Daemon", "running on \(daemon.socket), but it refused this user"))
        } else if daemon.running {
            lines.append(("Daemon", "running, griptrackd \(daemon.release ?? "?") (protocol \(daemon.proto ?? "?")) on \(daemon.socket)"))
        } else {
            lines.append(("Daemon", "not running (\(daemon.socket))"))
        }
        if let device {
            var parts = [device.state ?? "unknown"]
            let who = [device.name, device.address].compactMap { $0 }.joined(separator: " ")
            if !who.isEmpty { parts.append(who) }
            if let millivolts = device.batteryMv { parts.append("battery " + RecordState.volts(millivolts)) }
            if let source = device.source { parts.append("source \(source)") }
            lines.append(("Device", parts.joined(separator: ", ")))
            if let scale = device.correctionScale {
                let correction = ForceCorrection(scale: scale, offsetKilograms: device.correctionOffsetKg ?? 0)
                lines.append(("", "readings corrected \(Format.correction(correction)) ([device] scale, offset_kg)"))
            }
        }
        if daemon.running && daemon.release != nil {
            if let recording {
                var value = recording.state
                if recording.state == "recording" {
                    value += recording.id.map { " #\($0)" } ?? ""
                    value += recording.explicit == true ? " (griptrack record)" : " (automatic)"
                    if recording.saving == false { value += ", not saved" }
                }
                lines.append(("Recording", value))
                if let refusal = recording.refusal { lines.append(("", "not stored: \(refusal)")) }
            } else {
                lines.append(("Recording", "unknown (the daemon speaks protocol \(daemon.proto ?? "?"); 1.1 reports it)"))
            }
            lines.append(("Plan", plan?.reason ?? "unknown (the daemon speaks protocol \(daemon.proto ?? "?"); 1.1 reports it)"))
            if let warning = plan?.warning { lines.append(("", warning)) }
            if let sync { lines.append(("Sync", Self.describe(sync))) }
        } else if let localPlan {
            let why = daemon.running ? "the daemon refused this user" : "the daemon is not running"
            lines.append(("Plan", "\(localPlan.reason) (personal database \(localPlan.database); \(why))"))
            if let storage = localPlan.storage { lines.append(("", storage)) }
            if let warning = localPlan.warning { lines.append(("", warning)) }
        } else {
            let why = daemon.running ? "the daemon refused this user" : "the daemon is not running"
            lines.append(("Plan", "unknown (\(why) and there is no personal database)"))
        }
        return lines.map { label, value in
            (label.isEmpty ? "" : label + ":").rightPadded(11) + value + "\n"
        }.joined()
    }
}

extension StatusReport {
    /// One line: rows waiting, and the last success or what failed.
    static func describe(_ sync: DaemonMessage.StatusReply.Sync) -> String {
        var parts = ["\(sync.pendingRows) outbox rows waiting"]
        if let since = sync.pushingSince {
            parts.append("pushing since " + Format.second(Date(timeIntervalSince1970: since)))
        }
        if let error = sync.lastError {
            parts.append("last attempt failed (\(sync.failures) in a row): \(error)")
        } else if let success = sync.lastSuccessAt {
            parts.append("last success " + Format.second(Date(timeIntervalSince1970: success)))
        } else {
            parts.append("no push yet")
        }
        return parts.joined(separator: ", ")
    }
}
