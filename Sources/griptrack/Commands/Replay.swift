import ArgumentParser
import Foundation
import GripAnalysis
import GripReplay
import GripSimulator
import GripStore
import GripStream
import GripWire

extension Griptrack {
    /// `griptrack replay`: a btsnoop capture through the full pipeline.
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "replay",
            abstract: "Replay a btsnoop capture (btmon -w or Android HCI log) through the pipeline.",
            discussion: """
                Reads the capture, finds the force characteristic (from the capture's GATT discovery, \
                --handle, or by frame content), decodes every notification, cuts efforts and recordings, \
                and prints a summary. Without a capture it replays the bundled demo session \
                (captures/progressor-repeaters.btsnoop). With --json it prints one JSON object instead \
                (schema: docs/replay-json.md). Exits 5 when the capture is unreadable or damaged; \
                everything before the damage is still replayed and reported.

                With --save it stores each recording (samples, efforts, summary) in the database, through the \
                free plan's limit: a recording the limit refuses is not stored at all, the reason is printed, and \
                griptrack exits 3 after the replay (recordings stored before it stay stored).
                """
        )

        @Argument(help: "The capture file (.btsnoop, .log, .cfa). Default: the bundled demo session.")
        var capture: String?

        @Option(help: "Replay speed: max, realtime, or a factor such as 10 (capture time ÷ factor).")
        var speed: SpeedOption = .max

        @Option(help: "Force characteristic handle (e.g. 0x000e), when discovery is missing or wrong.")
        var handle: HandleOption?

        @Option(help: ArgumentHelp(
            "A Frez Dyno capture's calibration coefficient, kg per ADC count (the Frez app shows it).",
            valueName: "coefficient"))
        var calibration: Double?

        @Flag(help: "Store the recordings in the database (through the free plan's limit).")
        var save = false

        @OptionGroup var common: CommonOptions

        var json: Bool { common.json }

        func validate() throws {
            if let calibration, !(calibration.isFinite && (1e-9...0.1).contains(abs(calibration))) {
                throw ValidationError("--calibration takes kg per ADC count, between 1e-9 and 0.1 in size, e.g. 0.000105.")
            }
        }

        func run() throws {
            let path = try capture ?? DemoCapture.path()
            // Open the store first, so a bad configuration or database fails before the replay.
            let session = save ? try common.session() : nil
            let live = LiveReadout.isWanted(speed: speed.value, json: json) ? LiveReadout() : nil
            let collector = save ? RecordingCollector() : nil
            let report: ReplayReport
            do {
                // No observer at all when nothing watches (--json, no --save): the consumer then makes no call per
                // sample for it.
                var observer: ((StreamOutput, Int64) -> Void)?
                if live != nil || collector != nil {
                    observer = { output, hostMicros in
                        live?.show(output)
                        collector?.observe(output, hostMicros: hostMicros)
                    }
                }
                report = try ReplayReport.replaying(
                    path: path, options: ReplayOptions(speed: speed.value, handle: handle?.value, calibration: calibration),
                    observer: observer)
            } catch {
                if json {
                    // Scripts read stdout: say what went wrong there too (docs/replay-json.md), not only on stderr.
                    let object = ["capture": ["error": "\(error)"]]
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                    FileHandle.standardOutput.write((try? encoder.encode(object)) ?? Data())
                    FileHandle.standardOutput.write(Data("\n".utf8))
                }
                throw CLIExit.invalidInput.fail("\(error)")
            }
            live?.finish()
            var saved: (lines: [String], refusal: String?) = ([], nil)
            if let session, let collector {
                saved = try Self.store(collector.finished, from: path, profile: report.device.profile, in: session)
            }
            let refusal = saved.refusal
            if json {
                FileHandle.standardOutput.write(try report.jsonData())
            } else {
                print(ReplaySummary(report: report, path: path).text, terminator: "")
            }
            for line in saved.lines {
                if json { FileHandle.standardError.write(Data((line + "\n").utf8)) } else { print(line) }
            }
            if let damage = report.capture.error {
                if let refusal { FileHandle.standardError.write(Data(("griptrack: " + refusal + "\n").utf8)) }
                throw CLIExit.invalidInput.fail("the capture is damaged: \(damage)")
            }
            if let refusal { throw CLIExit.proRequired.fail(refusal) }
        }

        /// Stores each finished recording in one transaction (admission, samples, efforts, summary); stops at
        /// the first refusal. Returns the refusal text to print at the end, if any.
        static func store(
            _ recordings: [RecordingCollector.Finished], from path: String, profile: String, in session: Session
        ) throws -> (lines: [String], refusal: String?) {
            let device = "capture " + URL(fileURLWithPath: path).lastPathComponent
            let profileName = DeviceProfiles.named(profile)?.name ?? profile
            var lines: [String] = []
            for (index, finished) in recordings.enumerated() {
                let draft = RecordingDraft(startedAt: finished.startedAt, device: device, profile: profileName)
                do {
                    let id = try session.store.saveRecording(
                        finished.recording, samples: finished.samples, draft: draft, endedAt: finished.endedAt,
                        context: session.context, now: Date())
                    lines.append("Saved recording \(index + 1) of the capture as #\(id) (\(finished.samples.count) samples).")
                    if index == recordings.count - 1, let warning = try? session.store.accessStatus(session.context, now: Date()).freeWarning {
                        lines.append(warning)
                    }
                } catch .refused(let reason, _) {
                    let left = recordings.count - index
                    let what = left == 1
                        ? "Recording \(index + 1) of the capture was not saved"
                        : "Recordings \(index + 1)–\(recordings.count) of the capture were not saved"
                    return (lines, "\(what): \(reason)")
                } catch {
                    throw CLIExit.storeFailure(error)
                }
            }
            return (lines, nil)
        }
    }
}

/// Collects, on the replay's consumer thread, each recording with the samples it covers and its host times.
final class RecordingCollector {
    /// A recording ready to store.
    struct Finished {
        var recording: Recording
        /// Its samples: stream µs, kg as reported.
        var samples: [StoredSample]
        /// Host time of its first and last sample (wall clock, from the capture).
        var startedAt: Date
        var endedAt: Date
    }

    private(set) var finished: [Finished] = []
    /// Samples since the last recording ended, with their capture host time (Unix µs).
    private var pending: [(sample: StoredSample, hostMicros: Int64)] = []

    func observe(_ output: StreamOutput, hostMicros: Int64) {
        switch output {
        case .sample(let micros, let kilograms):
            pending.append((StoredSample(micros: micros, kilograms: kilograms), hostMicros))
        case .segment(.recordingEnded(let recording)):
            let inside = pending.filter { $0.sample.micros >= recording.startMicros && $0.sample.micros <= recording.endMicros }
            pending.removeAll { $0.sample.micros <= recording.endMicros }
            let first = inside.first?.hostMicros ?? hostMicros
            let last = inside.last?.hostMicros ?? first
            finished.append(Finished(
                recording: recording, samples: inside.map(\.sample),
                startedAt: Date(timeIntervalSince1970: Double(first) / 1e6),
                endedAt: Date(timeIntervalSince1970: Double(last) / 1e6)))
        default:
            break
        }
    }
}

/// `--speed max|realtime|<factor>`.
struct SpeedOption: ExpressibleByArgument {
    var value: ReplaySpeed

    static let max = SpeedOption(value: .max)

    init(value: ReplaySpeed) { self.value = value }

    init?(argument: String) {
        switch argument.lowercased() {
        case "max": value = .max
        case "realtime": value = .factor(1)
        default:
            guard let factor = Double(argument), factor > 0, factor.isFinite else { return nil }
            value = .factor(factor)
        }
    }

    static var allValueStrings: [String] { ["max", "realtime", "<factor>"] }

    /// The factor, or nil for `max`.
    var factor: Double? {
        if case .factor(let factor) = value { return factor }
        return nil
    }

    /// What `--help` shows as the default: the word a user types, not the Swift value.
    var defaultValueDescription: String {
        switch value {
        case .max: "max"
        case .factor(let factor) where factor == 1: "realtime"
        case .factor(let factor): "\(factor)"
        }
    }
}

/// `--handle 0x000e` or `--handle 14`.
struct HandleOption: ExpressibleByArgument {
    var value: UInt16

    init?(argument: String) {
        let lowered = argument.lowercased()
        let parsed = lowered.hasPrefix("0x") ? UInt16(lowered.dropFirst(2), radix: 16) : UInt16(lowered)
        guard let parsed, parsed > 0 else { return nil }
        value = parsed
    }
}

/// The bundled demo session: `captures/progressor-repeaters.btsnoop` when run from the repository, otherwise
/// the same session rendered by the simulator (byte-identical; a test checks it).
enum DemoCapture {
    static let name = "progressor-repeaters"

    static func path() throws -> String {
        let bundled = "captures/\(name).btsnoop"
        if FileManager.default.fileExists(atPath: bundled) { return bundled }
        guard let entry = CaptureCatalog.all.first(where: { $0.name == name }) else {
            throw CLIExit.error.fail("the demo session \(name) is missing from the simulator's catalog")
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("griptrack-\(name).btsnoop").path
        try Data(entry.session.render()).write(to: URL(fileURLWithPath: path))
        return path
    }
}
