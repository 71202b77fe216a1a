import ArgumentParser
import Foundation
import Glibc
import GripAnalysis
import GripConfig
import GripProtocol
import GripSystem

extension Griptrack {
    /// `griptrack calibrate`: a person's own correction of a sensor that reads off (docs/calibration.md).
    struct Calibrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Correct a sensor that reads a few percent off: read it unloaded, then under a known weight.",
            discussion: """
                Runs the daemon inside this command on a throwaway database (nothing is recorded), reads the sensor \
                of [device] raw (any correction already configured is left out), and walks you through two steps: \
                nothing on the sensor, then a weight you know hanging from it (a kettlebell or a bag weighed on a \
                kitchen or luggage scale). Each step waits for Enter, then for the reading to hold still for \
                --settle-seconds. The correction makes the sensor read 0 unloaded and the known weight loaded; \
                --write puts it under [device] in the configuration (address, scale, offset_kg), keeping the \
                file's comments. griptrackd applies it from its next start, to that sensor only, and every \
                recording stores the correction it was made with.

                griptrackd holds the sensor while it runs: stop it first (sudo systemctl stop griptrack).
                """)

        @Option(help: ArgumentHelp("The known weight's true mass in kg (1–500).", valueName: "kg"))
        var knownKg: Double

        @Flag(help: "Write the correction to the configuration file under [device] (address, scale, offset_kg).")
        var write = false

        @Flag(help: "Do not wait for Enter: take each step's first steady reading (for scripts and tests).")
        var auto = false

        @Option(help: ArgumentHelp("How long a reading must hold still to count.", valueName: "seconds"))
        var settleSeconds: Double = 2

        @Option(help: ArgumentHelp("How long a step may wait for a steady reading before giving up.", valueName: "seconds"))
        var timeoutSeconds: Double = 120

        @Option(help: ArgumentHelp("The sensor's address (default: [device] address, else the first supported device).",
                                   valueName: "address"))
        var device: String?

        @Option(help: ArgumentHelp("Read a btsnoop capture instead of the sensor (a demonstration; --write then needs --device).",
                                   valueName: "file"))
        var replay: String?

        @Option(help: ArgumentHelp("Replay speed with --replay: realtime, or a factor such as 10.", valueName: "factor"))
        var speed: SpeedOption?

        @Option(help: ArgumentHelp("The configuration file (default: /etc/griptrack/griptrack.toml).", valueName: "path"))
        var config: String?

        @Flag(help: "Print the result as JSON.")
        var json = false

        func validate() throws {
            if !(knownKg.isFinite && (1...500).contains(knownKg)) {
                throw ValidationError("--known-kg takes the weight's mass in kg, 1 to 500, e.g. 20.")
            }
            if !(settleSeconds.isFinite && (0.5...30).contains(settleSeconds)) {
                throw ValidationError("--settle-seconds must be between 0.5 and 30.")
            }
            if !(timeoutSeconds.isFinite && (1...3600).contains(timeoutSeconds)) {
                throw ValidationError("--timeout-seconds must be between 1 and 3600.")
            }
            if speed != nil && replay == nil { throw ValidationError("--speed needs --replay FILE.") }
            if speed?.factor == nil && speed != nil {
                throw ValidationError("--speed max is `griptrack replay`'s; give realtime or a factor such as 10.")
            }
            if let device, !BluetoothAddress.isValid(device) {
                throw ValidationError(BluetoothAddress.refusal(option: "--device", got: device))
            }
        }

        func run() async throws {
            let path = config ?? GriptrackConfig.defaultPath
            let file: GriptrackConfig
            do {
                file = try GriptrackConfig.load(path: path, required: config != nil)
            } catch {
                throw CLIExit.invalidInput.fail("invalid configuration: \(error)")
            }
            if replay == nil, let running = try? DaemonConnection(path: DaemonSocket.defaultPath) {
                running.close()
                throw CLIExit.unavailable.fail(
                    "griptrackd is running and holds the sensor. Stop it for the calibration (sudo systemctl stop "
                        + "griptrack), run this again, then start it (sudo systemctl start griptrack).")
            }
            if let replay, !FileManager.default.fileExists(atPath: replay) {
                throw CLIExit.invalidInput.fail("no capture at \(replay).")
            }
            let local: InProcessDaemon
            do {
                local = try InProcessDaemon { [device, replay, speed] configuration, directory in
                    configuration.databasePath = directory + "/calibration.db"
                    configuration.apply(file, deviceAddress: device)
                    // Raw readings: a correction already configured would be corrected again.
                    configuration.file.device.scale = nil
                    configuration.file.device.offsetKilograms = nil
                    if let replay {
                        configuration.replayPath = replay
                        configuration.replaySpeed = speed?.factor ?? 1
                        configuration.replayWaitsForWatcher = true
                    }
                }
            } catch {
                throw CLIExit.error.fail("\(error)")
            }
            await local.waitUntilServing()
            let walk = CalibrationWalk(
                knownKilograms: knownKg, settleMicros: Int64(settleSeconds * 1e6), timeoutSeconds: timeoutSeconds,
                waitsForEnter: !auto, talks: !json)
            let socket = local.socketPath
            let outcome = await NamedThread.run(name: "gt-client") { Result { try walk.run(socket: socket) } }
            await local.stop()
            let readings: CalibrationWalk.Readings
            switch outcome {
            case .success(let value): readings = value
            case .failure(let error): throw CLIExit.error.fail("\(error)")
            }
            let correction: ForceCorrection
            do throws(ForceCorrection.FitFailure) {
                correction = try ForceCorrection.fit(
                    unloaded: readings.unloaded, loaded: readings.loaded, knownKilograms: knownKg)
            } catch {
                throw CLIExit.error.fail("no correction: \(error)")
            }
            let address = device?.uppercased() ?? file.device.address ?? readings.address
            let lines = Self.configurationLines(correction, address: address)
            var written: String?
            if write {
                guard address != nil else {
                    throw CLIExit.invalidInput.fail(
                        "no sensor address is known, and a correction belongs to one sensor: give --device ADDRESS.")
                }
                try Self.write(lines, to: path)
                written = path
            }
            if json {
                try printJSON(CalibrationJSON(
                    unloadedKg: readings.unloaded, loadedKg: readings.loaded, knownKg: knownKg, scale: correction.scale,
                    offsetKg: correction.offsetKilograms, address: address, written: written))
                return
            }
            print(String(format: "Unloaded it read %.2f kg, loaded %.2f kg, for %.2f kg.", readings.unloaded,
                         readings.loaded, knownKg))
            print("Correction: \(Format.correction(correction)).")
            if let written {
                print("Written under [device] in \(written). griptrackd applies it from its next start: "
                      + "sudo systemctl start griptrack (or restart).")
            } else {
                print("To apply it, add under [device] in \(path) (or run again with --write):")
                for line in lines { print("  \(line.key) = \(line.value)") }
            }
        }

        /// The `[device]` keys of a correction, as TOML writes them.
        static func configurationLines(_ correction: ForceCorrection, address: String?) -> [(key: String, value: String)] {
            var lines: [(key: String, value: String)] = []
            if let address { lines.append(("address", "\"\(address)\"")) }
            lines.append(("scale", String(format: "%.5f", correction.scale)))
            lines.append(("offset_kg", String(format: "%.3f", correction.offsetKilograms)))
            return lines
        }

        /// Sets the lines in the file (made if missing), checked as a whole configuration before it replaces the old
        /// one in a single rename.
        static func write(_ lines: [(key: String, value: String)], to path: String) throws {
            let old = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            let new = ConfigFileEdit.setting(lines, in: "device", of: old)
            do {
                _ = try GriptrackConfig.parse(new, file: path)
            } catch {
                throw CLIExit.error.fail("the edited configuration would not read (\(error)); \(path) is unchanged.")
            }
            let temporary = path + ".calibrate"
            let mode = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int ?? 0o644
            do {
                try Data(new.utf8).write(to: URL(fileURLWithPath: temporary))
                try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: temporary)
                guard rename(temporary, path) == 0 else {
                    throw CocoaError(.fileWriteNoPermission)
                }
            } catch {
                _ = unlink(temporary)
                let keys = lines.map { "\($0.key) = \($0.value)" }.joined(separator: "\n  ")
                throw CLIExit.error.fail(
                    "cannot write \(path) (\(error.localizedDescription)): run it with sudo, or add under [device] "
                        + "yourself:\n  \(keys)")
            }
        }
    }
}

/// `griptrack calibrate --json`.
struct CalibrationJSON: Encodable {
    var unloadedKg: Double
    var loadedKg: Double
    var knownKg: Double
    var scale: Double
    var offsetKg: Double
    var address: String?
    /// The configuration file the correction was written to (`--write`).
    var written: String?
}

/// The two steps of a calibration against a daemon's live samples: unloaded, then under the known weight. Each step
/// waits for Enter (unless told not to), then for a reading that holds still (`SteadyReading`).
struct CalibrationWalk: Sendable {
    struct Readings: Sendable {
        var unloaded: Double
        var loaded: Double
        /// The sensor's address, when the daemon reported one.
        var address: String?
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    var knownKilograms: Double
    var settleMicros: Int64
    var timeoutSeconds: Double
    var waitsForEnter: Bool
    /// Whether to print the steps and progress (not with --json).
    var talks: Bool

    func run(socket: String) throws -> Readings {
        let connection = try DaemonConnection(path: socket)
        try connection.send(.watch(enable: true, pace: .immediate))
        var address: String?
        let unloaded = try step(
            "Step 1 of 2: take everything off the sensor and let it hang still.", connection: connection,
            address: &address) { _ in true }
        // Any usable scale (at most 2) makes the known weight read at least half of itself above the unloaded reading.
        let least = knownKilograms / ForceCorrection.scaleRange.upperBound * 0.9
        let loaded = try step(
            String(format: "Step 2 of 2: hang the %.2f kg weight from the sensor and let it settle.", knownKilograms),
            connection: connection, address: &address) { $0 - unloaded >= least }
        connection.close()
        return Readings(unloaded: unloaded, loaded: loaded, address: address)
    }

    /// One step: its instruction, then the first steady reading `accepts` takes (after Enter, when waited for).
    private func step(
        _ instruction: String, connection: DaemonConnection, address: inout String?, accepts: (Double) -> Bool
    ) throws -> Double {
        say(instruction + (waitsForEnter ? " Then press Enter." : ""))
        var armed = !waitsForEnter
        var reading = SteadyReading(windowMicros: settleMicros)
        var latest: Double?
        var deviceState = "searching"
        let started = Date()
        var lastProgress = Date.distantPast
        // A replay's end reaches watchers as silence; STATUS then tells an ended capture from a pause.
        var lastMessage = Date()
        var askedStatus = false
        while true {
            if armed, let mean = reading.steadyKilograms, accepts(mean) {
                sayProgress(nil)
                say(String(format: "  read %.2f kg", mean))
                return mean
            }
            if Date().timeIntervalSince(started) > timeoutSeconds {
                sayProgress(nil)
                let now = latest.map { String(format: "it reads %.2f kg, moving by %.2f kg", $0, reading.spreadKilograms) }
                    ?? "no samples came (the device is \(deviceState))"
                throw Failure(description: "no steady reading in \(Int(timeoutSeconds)) s: \(now). Let the sensor "
                    + "hang still, check the weight hangs freely, and try again (--timeout-seconds gives more time).")
            }
            if armed, talks, Date().timeIntervalSince(lastProgress) > 0.25, let latest {
                sayProgress(String(format: "  reading %.2f kg, moving by %.2f kg", latest, reading.spreadKilograms))
                lastProgress = Date()
            }
            var descriptors = [pollfd(fd: connection.descriptor, events: Int16(POLLIN), revents: 0)]
            if !armed { descriptors.append(pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)) }
            _ = SystemCall.poll(&descriptors, timeoutMilliseconds: 250)
            if descriptors.count > 1, descriptors[1].revents != 0 {
                // Enter (or the end of standard input) arms the step; what was read is a line nobody needs.
                _ = readLine()
                armed = true
                reading.reset()
            }
            guard descriptors[0].revents != 0 else {
                if !askedStatus, Date().timeIntervalSince(lastMessage) > 1 {
                    try connection.send(.status)
                    askedStatus = true
                }
                continue
            }
            guard try connection.readAvailable() else {
                throw Failure(description: "the daemon went away before the reading settled")
            }
            while let (message, _) = try connection.buffered() {
                lastMessage = Date()
                switch message {
                case .samples(let times, let kilograms):
                    for (time, kg) in zip(times, kilograms) {
                        reading.add(micros: Int64((time * 1e6).rounded()), kilograms: kg)
                        latest = kg
                    }
                case .device(let report):
                    if let state = report.state { deviceState = state }
                    if let reported = report.address { address = reported }
                    if report.state == "ended" { throw Self.captureEnded }
                case .status(let status):
                    askedStatus = false
                    if status.device?.state == "ended" { throw Self.captureEnded }
                default:
                    break
                }
            }
        }
    }

    private static let captureEnded = Failure(description: "the capture ended before the reading settled")

    private func say(_ line: String) {
        guard talks else { return }
        // Unbuffered: each step's instruction must show before the step waits.
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// A progress line redrawn in place on a terminal; nil clears it.
    private func sayProgress(_ line: String?) {
        guard talks, isatty(STDOUT_FILENO) == 1 else { return }
        FileHandle.standardOutput.write(Data(("\r\u{1B}[2K" + (line ?? "")).utf8))
    }
}
