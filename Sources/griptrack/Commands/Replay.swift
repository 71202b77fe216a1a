import ArgumentParser
import Foundation
import GripSimulator
import GripStream

extension Griptrack {
    /// `griptrack replay`: a btsnoop capture through the full pipeline.
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay a btsnoop capture (btmon -w or Android HCI log) through the pipeline.",
            discussion: """
                Reads the capture, finds the force characteristic (from the capture's GATT discovery, \
                --handle, or by frame content), decodes every notification, cuts efforts and recordings, \
                and prints a summary. Without a capture it replays the bundled demo session \
                (captures/progressor-repeaters.btsnoop). With --json it prints one JSON object instead \
                (schema: docs/replay-json.md). Exits 5 when the capture is unreadable or damaged; \
                everything before the damage is still replayed and reported.
                """
        )

        @Argument(help: "The capture file (.btsnoop, .log, .cfa). Default: the bundled demo session.")
        var capture: String?

        @Option(help: "Replay speed: max, realtime, or a factor such as 10 (capture time ÷ factor).")
        var speed: SpeedOption = .max

        @Option(help: "Force characteristic handle (e.g. 0x000e), when discovery is missing or wrong.")
        var handle: HandleOption?

        @Flag(help: "Print one JSON object (docs/replay-json.md) instead of the human summary.")
        var json = false

        func run() throws {
            let path = try capture ?? DemoCapture.path()
            let live = LiveReadout.isWanted(speed: speed.value, json: json) ? LiveReadout() : nil
            let report: ReplayReport
            do {
                report = try CaptureReplay.run(
                    path: path, options: ReplayOptions(speed: speed.value, handle: handle?.value),
                    observer: live.map { readout in { readout.show($0) } })
            } catch {
                throw CLIExit.invalidInput.fail("\(error)")
            }
            live?.finish()
            if json {
                FileHandle.standardOutput.write(try report.jsonData())
            } else {
                print(ReplaySummary(report: report, path: path).text, terminator: "")
            }
            if let damage = report.capture.error {
                throw CLIExit.invalidInput.fail("the capture is damaged: \(damage)")
            }
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
