import ArgumentParser
import Foundation
import GripAnalysis
import GripConfig
import GripDaemon
import GripProtocol
import GripStore
import GripSystem

extension Griptrack {
    /// `griptrack record`: an explicit recording with a live readout, through griptrackd or an in-process daemon.
    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "record",
            abstract: "Record a grip session with a live readout.",
            discussion: """
                Attaches to griptrackd (--socket, default /run/griptrack/griptrack.sock), starts a recording, shows \
                the force live and stops at Ctrl-C or after --duration, then prints what was saved. With --replay \
                FILE or --direct it runs the daemon inside this command instead (a private socket, the personal \
                database --db) and attaches to it the same way. The free plan's limit is checked when the \
                recording starts: a refusal exits 3 and stores nothing (--no-save gives a live-only view).

                On a terminal the readout fills the screen; otherwise it prints one line per effort and per device \
                change. With --json it prints the daemon's RECORD, EFFORT, RECORDING, DEVICE and RECORDER lines \
                (docs/protocol.md), then the STOP result.
                """
        )

        @OptionGroup var setup: SetupOptions

        @Option(name: .customLong("protocol"), help: ArgumentHelp(
            "Run a protocol: a built-in (max, repeaters, cf, rfd, endurance), a name from the configuration's [protocols], "
                + "or notation such as \"repeaters 6x 7:3 @80%\".",
            discussion: "Shows a 5 s countdown, HANG and REST with the time left, the rep and set, the next hand and the "
                + "target band (with --max-kg); on a terminal the bell marks each hang's start and end (docs/protocols.md).",
            valueName: "protocol"))
        var protocolText: String?

        @Option(name: .customLong("max-kg"), parsing: .unconditional, help: ArgumentHelp(
            "The athlete's max for this hand and grip (kg): the protocol's target band is a percentage of it.",
            discussion: "Default: the best recording max stored for --athlete, --hand and --grip, named when the run starts.",
            valueName: "kg"))
        var maxKg: Double?

        @Flag(inversion: .prefixedNo, help: ArgumentHelp(
            "Speak the protocol's cues (get ready, 3, 2, 1, pull, rest, done) through espeak-ng.",
            discussion: "Default: on a terminal when espeak-ng is on PATH. The bell rings either way."))
        var speak: Bool?

        @Option(help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
        var duration: Double?

        @Flag(help: "Live view only: store nothing (works when the free plan is full).")
        var noSave = false

        @Flag(help: ArgumentHelp(
            "With --json: each notification's samples as soon as griptrackd decodes them, instead of up to 25 lines a second.",
            discussion: "For biofeedback or a program reacting to the force; needs griptrackd with protocol 1.3."))
        var immediate = false

        @Option(help: ArgumentHelp(
            "Replay a btsnoop capture through an in-process daemon instead of attaching to griptrackd.",
            valueName: "file"))
        var replay: String?

        @Option(help: ArgumentHelp(
            "Replay speed with --replay: realtime, or a factor such as 10 (capture time ÷ factor).", valueName: "factor"))
        var speed: SpeedOption?

        @Flag(help: "Connect to the device through BlueZ from this command, without griptrackd.")
        var direct = false

        @Option(help: ArgumentHelp("The device address with --direct (default: the first supported device).",
                                   valueName: "address"))
        var device: String?

        @Option(help: ArgumentHelp(
            "With --direct: give up, saying why and exiting 4, when no sample has come after this long.",
            valueName: "seconds"))
        var connectTimeout: Double = 30

        @Option(help: ArgumentHelp("griptrackd's socket (default: /run/griptrack/griptrack.sock).", valueName: "path"))
        var socket: String?

        @OptionGroup var common: CommonOptions

        func validate() throws {
            if replay != nil && direct {
                throw ValidationError("--replay and --direct cannot be combined: pick one source.")
            }
            if socket != nil && (replay != nil || direct) {
                throw ValidationError("--socket attaches to a running griptrackd; --replay and --direct run their own. Drop one.")
            }
            if device != nil && !direct { throw ValidationError("--device needs --direct.") }
            if !(connectTimeout.isFinite && (1...3600).contains(connectTimeout)) {
                throw ValidationError("--connect-timeout must be between 1 and 3600 seconds.")
            }
            if let device, !BluetoothAddress.isValid(device) {
                throw ValidationError(BluetoothAddress.refusal(option: "--device", got: device))
            }
            if speed != nil && replay == nil { throw ValidationError("--speed needs --replay FILE.") }
            if case .max = speed?.value {
                throw ValidationError("--speed max is `griptrack replay`'s; griptrackd plays a capture at a pace: give realtime or a factor such as 10.")
            }
            if let duration, !(duration > 0 && duration.isFinite) {
                throw ValidationError("--duration must be a number of seconds above 0, e.g. 60.")
            }
            if immediate && !common.json {
                throw ValidationError("--immediate changes how often --json prints SAMPLES; add --json (a screen redraws at most 25 times a second anyway).")
            }
            try setup.validate(requireOne: false)
            if let protocolText, let configured = ProtocolOption.configured(common) {
                _ = try ProtocolOption.parse(protocolText, configured: configured)
            }
            try MaxKgOption.check(maxKg)
            if maxKg != nil && protocolText == nil { throw ValidationError("--max-kg sets a protocol's band; add --protocol.") }
            if speak == true && protocolText == nil { throw ValidationError("--speak speaks a protocol's cues; add --protocol.") }
        }

        func run() async throws {
            let config = try common.loadConfig()
            let training = try protocolText.map { try ProtocolOption.parse($0, configured: config.protocols) }
            // A band needs the athlete's max: --max-kg, else the best stored for this hand and grip.
            let bandMax = try maxKg ?? (training?.targetPercent == nil ? nil : historyMax())
            let run = protocolText.flatMap { text in
                training.map {
                    ProtocolRun(name: text, training: $0, maxKg: bandMax, firstHand: setup.hand == .left ? .left : .right)
                }
            }
            let mode: Mode = json ? .json : FullScreenView.isWanted ? .fullScreen : .plain
            let request = RecordRequest(
                hand: setup.hand, label: setup.label, save: !noSave, duration: duration, immediate: immediate,
                run: run, speaker: run == nil ? nil : Self.speaker(wanted: speak, terminal: mode == .fullScreen),
                connectTimeout: direct ? connectTimeout : nil)
            let interrupt = InterruptSignal()
            let local: InProcessDaemon?
            if let replay {
                local = try Self.startLocal(
                    .replay(path: replay, speed: speed?.factor ?? 1), config: config, database: common.databasePath)
            } else if direct {
                local = try Self.startLocal(.direct(address: device), config: config, database: common.databasePath)
            } else {
                local = nil
            }
            if let local { await local.waitUntilServing() }
            let path = local?.socketPath ?? socket ?? DaemonSocket.defaultPath
            let outcome = await NamedThread.run(name: "gt-client") { Self.attach(path: path, request: request, mode: mode, interrupt: interrupt) }
            request.speaker?.finish()
            await local?.stop()

            switch outcome {
            case .failure(let failure):
                throw failure.exit.fail(failure.description)
            case .success(let (end, state)):
                if mode == .fullScreen {
                    for effort in state.efforts { print(RecordState.plain(effort)) }
                }
                try describeSaved(end, configured: config.protocols, maxKg: bandMax)
                if !json {
                    print(Self.summary(end, state: state))
                    // Said before the next recording is refused, not after: from the STOP reply, or, when the
                    // in-process daemon ended the recording itself, from its database (unreadable: nothing said).
                    if let warning = end.warning { print(warning) }
                    else if end.savedID != nil, local != nil, let warning = try? destination().plan().warning { print(warning) }
                }
                if case .endedByDaemon = end, local == nil {
                    throw CLIExit.error.fail(
                        "griptrackd ended the recording itself (the device stream ended or the daemon is stopping).")
                }
            }
        }

        var json: Bool { common.json }

        /// Stores athlete, grip, edge, body weight and the protocol run (with its band's max) on the saved
        /// recording, through the daemon that saved it (LABEL) or, for an in-process daemon that has stopped, in the
        /// personal database it wrote. RECORD itself carries only hand and label.
        private func describeSaved(_ end: RecordEnd, configured: [GriptrackConfig.NamedProtocol], maxKg: Double?) throws {
            let setupOnly = RecordingDescription(
                athlete: setup.athlete, grip: setup.grip, edgeMillimetres: setup.edgeMillimetres,
                bodyWeightKilograms: setup.bodyWeightKilograms,
                protocolNotation: protocolText.map { ProtocolOption.storedText($0, configured: configured) },
                protocolMaxKilograms: maxKg)
            guard !setupOnly.isEmpty, let id = end.savedID else { return }
            _ = try destination().describe(RecordingID(rawValue: id), setupOnly)
        }

        /// The library this recording goes to: griptrackd's, or the personal database with --replay and --direct
        /// (the in-process daemon's, read after it stopped).
        private func destination() throws -> any RecordingLibrary {
            if replay != nil || direct {
                return try LocalLibrary(common: common, database: DatabaseChoice(kind: .personal, path: common.databasePath))
            }
            do {
                return try DaemonLibrary(connection: DaemonConnection(path: socket ?? DaemonSocket.defaultPath))
            } catch {
                throw error.exit.fail(error.description)
            }
        }

        /// The best MVC stored for this athlete, hand and grip, from the library this recording goes to (griptrackd's,
        /// or the personal database with --replay and --direct), said with the recording it came from; nil, said
        /// with what to do, when there is none.
        private func historyMax() throws -> Double? {
            let filter = RecordingFilter(athlete: setup.athlete, hand: setup.hand, grip: setup.grip)
            let best = try HistoryMax.best(in: destination(), filter: filter)
            // Before the readout: on a terminal it stays on the screen the full-screen view gives back at the end;
            // with --json, standard output is the daemon's lines alone.
            let note = Data(((best?.text ?? HistoryMax.missing(filter)) + "\n").utf8)
            (json ? FileHandle.standardError : FileHandle.standardOutput).write(note)
            return best?.kilograms
        }

        enum Mode: Sendable { case fullScreen, plain, json }

        /// The cues' speaker: with `--speak`, or by default on a terminal, when espeak-ng is on PATH; nil otherwise.
        static func speaker(wanted: Bool?, terminal: Bool) -> CueSpeaker? {
            guard wanted ?? terminal else { return nil }
            guard let executable = CueSpeaker.find(path: ProcessInfo.processInfo.environment["PATH"]) else {
                if wanted == true {
                    FileHandle.standardError.write(Data((
                        "griptrack: --speak: \(CueSpeaker.program) is not on PATH, so the cues stay silent (the bell "
                            + "still rings on a terminal). Install it (apt install espeak-ng) to hear them.\n").utf8))
                }
                return nil
            }
            return CueSpeaker(executable: executable)
        }

        /// Connects, records, and restores the terminal; blocking.
        static func attach(
            path: String, request: RecordRequest, mode: Mode, interrupt: InterruptSignal
        ) -> Result<(RecordEnd, RecordState), RecordFailure> {
            let connection: DaemonConnection
            do {
                connection = try DaemonConnection(path: path)
            } catch {
                return .failure(.client(error))
            }
            defer { connection.close() }
            let view: any RecordView = switch mode {
            case .fullScreen: FullScreenView()
            case .plain: PlainView()
            case .json: JSONLinesView()
            }
            defer { view.close() }
            let session = RecordSession(connection: connection, request: request, view: view, interrupt: interrupt)
            do {
                let end = try session.run()
                return .success((end, session.state))
            } catch {
                return .failure(error)
            }
        }

        /// Where the in-process daemon's samples come from.
        enum LocalSource {
            /// A capture, held until our WATCH so the recording covers all of it.
            case replay(path: String, speed: Double)
            /// The device through BlueZ (`[device]` in the configuration, or this address).
            case direct(address: String?)
        }

        /// Starts the in-process daemon on the personal database, with the configuration file's settings.
        static func startLocal(_ source: LocalSource, config: GriptrackConfig, database: String) throws -> InProcessDaemon {
            if case .replay(let path, _) = source, !FileManager.default.fileExists(atPath: path) {
                throw CLIExit.invalidInput.fail("no capture at \(path). Check the path (`griptrack replay FILE` reads the same files).")
            }
            do {
                return try InProcessDaemon { configuration, _ in
                    configuration.databasePath = database
                    switch source {
                    case .replay(let path, let speed):
                        configuration.apply(config, deviceAddress: nil)
                        configuration.replayPath = path
                        configuration.replaySpeed = speed
                        configuration.replayWaitsForWatcher = true
                    case .direct(let address):
                        configuration.apply(config, deviceAddress: address)
                    }
                }
            } catch let error as DaemonError {
                if case .replay = error { throw CLIExit.invalidInput.fail(error.description) }
                throw CLIExit.error.fail(error.description)
            }
        }

        /// `Saved recording #12: 3 efforts, max 31.2 kg, average 29.8 kg`, or `Not saved (--no-save): …`.
        static func summary(_ end: RecordEnd, state: RecordState) -> String {
            let saved: Bool
            let id: Int64?
            var reason: String?
            var efforts: Int?
            var maxKg: Double?
            var averageKg: Double?
            switch end {
            case .stopped(let reply):
                saved = reply.event == "saved"
                id = reply.id
                reason = reply.reason
                efforts = reply.efforts
                maxKg = reply.maxKg.map(Double.init)
                averageKg = reply.avgKg.map(Double.init)
            case .endedByDaemon(let report):
                saved = report.event == "saved"
                id = report.id
                reason = report.reason
                efforts = report.efforts
            }
            if !saved, let reason {
                return "Not saved: \(reason)."
            }
            let count = efforts ?? state.efforts.count
            if maxKg == nil, count == state.efforts.count {
                maxKg = state.maxKg
                averageKg = state.averageKg
            }
            var what = count == 1 ? "1 effort" : "\(count) efforts"
            if count == 0 { what = "no efforts" }
            if let maxKg { what += ", max \(Format.kg(maxKg)), average \(Format.kg(averageKg ?? maxKg))" }
            let head = saved ? "Saved recording" + (id.map { " #\($0)" } ?? "") : "Not saved (--no-save)"
            return head + ": " + what
        }
    }
}

/// `--hand left|right`: the recording's hand, read from the command line.
extension Hand: ExpressibleByArgument {
    /// `Left`, `LEFT` and `left` alike: people type the words as they say them.
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

