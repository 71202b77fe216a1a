import ArgumentParser
import Foundation
import GripConfig
import GripDaemon
import GripProtocol
import GripSync
import GripWeb
import Logging

/// `griptrackd`: the griptrack service. Parses flags, bootstraps logging to stderr (journald reads it), runs the
/// daemon until SIGTERM or SIGINT.
@main
struct Griptrackd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "griptrackd",
        abstract: "The griptrack daemon: records a BLE grip dynamometer and serves live data on a Unix socket.",
        discussion: """
            Clients connect to the socket and speak newline-delimited JSON (docs/protocol.md): the daemon greets \
            with VERSION; {"class":"WATCH","enable":true} streams SAMPLES, EFFORT, RECORDING and DEVICE messages; \
            {"class":"STATUS"} reports counters; RECORD and STOP store recordings (recordings also start by \
            themselves, within the free plan's limit), PRO shows or changes access. Root, the daemon's own user \
            and members of group griptrack may connect; granting or revoking Pro needs root or group \
            griptrack-admin. Under systemd (Type=notify) it reports READY, STATUS and WATCHDOG through $NOTIFY_SOCKET. \
            SIGTERM or SIGINT shut it down gracefully. Without --replay it finds the device through BlueZ ([device] in the \
            configuration, or --device) and keeps looking until bluetoothd and the device are there.
            """,
        version: VersionText.text
    )

    /// Parses and runs, mapping ArgumentParser's usage exit code (64) to griptrack's 2 (docs/design.md, "Interfaces").
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }

    @Option(name: .long, help: ArgumentHelp(
        "Configuration file (TOML); must exist if given. Default: \(GriptrackConfig.defaultPath) if present.",
        valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Recordings database (SQLite).", valueName: "path"))
    var db: String = DaemonConfiguration.defaultDatabasePath

    @Option(name: .long, help: ArgumentHelp("Unix socket to listen on.", valueName: "path"))
    var socket: String = DaemonSocket.defaultPath

    @Option(name: .long, help: ArgumentHelp("Bluetooth address of the device (AA:BB:CC:DD:EE:FF); overrides [device] address.", valueName: "address"))
    var device: String?

    @Option(name: .long, help: ArgumentHelp("Replay a btsnoop capture instead of the radio.", valueName: "file"))
    var replay: String?

    @Option(name: .long, help: ArgumentHelp("Replay pace: capture time divided by this factor (1 = realtime).", valueName: "factor"))
    var speed: Double = 1

    @Flag(name: .long, help: "Hold the replay until the first client sends WATCH.")
    var waitForWatcher = false

    @Option(name: .long, help: ArgumentHelp(
        "Serve the web app on this address and port (e.g. 0.0.0.0:8080); overrides [web] listen (docs/web.md).",
        valueName: "addr:port"))
    var web: String?

    func validate() throws {
        if let device, !BluetoothAddress.isValid(device) {
            throw ValidationError(BluetoothAddress.refusal(option: "--device", got: device))
        }
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be a positive number, got \(speed)") }
        if waitForWatcher && replay == nil { throw ValidationError("--wait-for-watcher needs --replay") }
        if let web, WebListen(web) == nil {
            throw ValidationError("--web must be an address and port such as 0.0.0.0:8080 or [::]:8080, got \(web)")
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = ProcessInfo.processInfo.environment["GRIPTRACK_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
            return handler
        }
        let logger = Logger(label: "griptrackd")
        let file: GriptrackConfig
        do {
            file = try GriptrackConfig.load(path: config ?? GriptrackConfig.defaultPath, required: config != nil)
        } catch {
            FileHandle.standardError.write(Data("griptrackd: invalid configuration: \(error)\n".utf8))
            throw ExitCode(5)
        }
        var configuration = DaemonConfiguration(
            socketPath: socket, replayPath: replay, replaySpeed: speed, replayWaitsForWatcher: waitForWatcher,
            handlesSignals: true, databasePath: db)
        configuration.releasesStartupPages = true
        configuration.apply(file, deviceAddress: device)
        do {
            configuration.sync = try SyncConfiguration.from(file, logger: Logger(label: "griptrackd.sync"))
            configuration.mqtt = try DaemonMQTT.from(file)
        } catch {
            FileHandle.standardError.write(Data("griptrackd: invalid configuration: \(error)\n".utf8))
            throw ExitCode(5)
        }
        let daemon: Daemon
        do {
            daemon = try Daemon(configuration: configuration, logger: logger)
        } catch {
            FileHandle.standardError.write(Data("griptrackd: \(error)\n".utf8))
            throw ExitCode(error.isInvalidInput ? 5 : 1)
        }
        guard let listen = web.flatMap(WebListen.init) ?? file.web.listen else {
            try await daemon.run()
            return
        }
        var settings = WebSettings(
            listen: listen, anonymous: file.web.anonymous, socketPath: socket,
            tls: file.webTLSFiles.map { WebSettings.TLSFiles(certificatePath: $0.certificate, keyPath: $0.key) })
        settings.protocols = file.protocols
        let server = WebServer(
            settings: settings,
            access: daemon.webAccess, logger: Logger(label: "griptrackd.web"),
            metrics: { daemon.metricsExposition() })
        try await Self.run(daemon, with: server, logger: logger)
    }

    /// Runs the daemon and its web app together. The web app stops when the daemon has (SIGTERM). A web app that
    /// cannot start (the port is taken, the unit allows no IP sockets) is logged and the daemon goes on recording:
    /// the screen is worth less than the recordings.
    static func run(_ daemon: Daemon, with server: WebServer, logger: Logger) async throws {
        let web = Task {
            await daemon.waitUntilServing()
            do {
                try await server.run()
            } catch is CancellationError {
            } catch {
                logger.error(
                    "The web app could not start; the daemon goes on without it",
                    metadata: ["web.error": "\(error)"])
            }
        }
        defer { web.cancel() }
        try await daemon.run()
        web.cancel()
        await web.value
    }
}
extension DaemonError {
    /// A bad replay capture is invalid input (exit 5); anything else is an error (exit 1).
    var isInvalidInput: Bool {
        if case .replay = self { return true }
        return false
    }
}
