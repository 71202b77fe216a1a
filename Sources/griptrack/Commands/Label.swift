import ArgumentParser
import Foundation
import GripAnalysis
import GripStore

extension Griptrack {
    /// `griptrack label <id>`: change who pulled and how.
    struct Label: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "label",
            abstract: "Change a recording's hand, grip, edge, athlete, body weight, label or protocol.",
            discussion: """
                Each option given replaces the stored value; an empty text (--grip "") clears it; options not given \
                keep what is stored. --body-weight-from-hang RID measures the body weight from recording RID, a \
                hang of at least 10 s: the median force between 5 and 10 s into its longest effort. --protocol \
                says which protocol the recording ran (as `record --protocol` stores it), so `show` scores it and \
                `trends` groups it; --max-kg is the max its band was a percentage of. With griptrackd running, the \
                daemon makes the change (it needs root or group \
                griptrack-admin, as delete does); otherwise it is made in the personal database (or --db). Prints \
                the recording as stored afterwards.
                """
        )

        @OptionGroup var common: CommonOptions
        @OptionGroup var place: SocketOption

        @Argument(help: "The recording's id (see `griptrack list`).")
        var id: RecordingIDArgument

        @OptionGroup var setup: SetupOptions

        @Option(help: ArgumentHelp(
            "Measure the body weight from this recording: a still hang of at least 10 s (median of seconds 5–10).",
            valueName: "id"))
        var bodyWeightFromHang: RecordingIDArgument?

        @Option(name: .customLong("protocol"), help: ArgumentHelp(
            "The protocol the recording ran: a built-in (max, repeaters, cf, rfd, endurance) or notation; \"\" clears it.",
            valueName: "protocol"))
        var protocolText: String?

        @Option(name: .customLong("max-kg"), parsing: .unconditional, help: ArgumentHelp(
            "The athlete's max the protocol's target band is a percentage of (kg).", valueName: "kg"))
        var maxKg: Double?

        /// The options' change: the setup's, with the protocol as a recording stores it.
        var change: RecordingDescription {
            var change = setup.description
            let configured = ProtocolOption.configured(common) ?? []
            change.protocolNotation = protocolText.map { $0.isEmpty ? "" : ProtocolOption.storedText($0, configured: configured) }
            change.protocolMaxKilograms = maxKg
            return change
        }

        func validate() throws {
            if let protocolText, !protocolText.isEmpty, let configured = ProtocolOption.configured(common) {
                _ = try ProtocolOption.parse(protocolText, configured: configured)
            }
            try MaxKgOption.check(maxKg)
            let protocolGiven = protocolText != nil || maxKg != nil
            if bodyWeightFromHang != nil {
                if setup.bodyWeightKilograms != nil {
                    throw ValidationError("--body-weight-kg and --body-weight-from-hang both set the body weight: pick one.")
                }
                try setup.validate(requireOne: false)
            } else {
                try setup.validate(requireOne: !protocolGiven)
            }
        }

        func run() throws {
            let library = try LibraryChoice.open(common: common, socket: place)
            var change = self.change
            if let hang = bodyWeightFromHang {
                change.bodyWeightKilograms = try Self.bodyWeight(fromHang: hang.id, in: library)
                if let problem = change.problem { throw CLIExit.invalidInput.fail("recording \(hang.id): \(problem)") }
            }
            let row = try library.describe(id.id, change)
            if common.json {
                try printJSON(LabelJSON(recording: ListJSON.Item(row), database: library.database))
            } else {
                print("Recording \(row.id): \(Format.who(row) ?? "nothing said about it")")
            }
        }
    }
}

extension Griptrack.Label {
    /// The body weight a hang recording gives (its longest effort), or exit 5 saying why it gives none.
    static func bodyWeight(fromHang id: RecordingID, in library: any RecordingLibrary) throws -> Double {
        let (_, efforts) = try library.show(id)
        guard let hang = efforts.max(by: { $0.durationMicros < $1.durationMicros }) else {
            throw CLIExit.invalidInput.fail("recording \(id) has no efforts to measure a body weight from")
        }
        let trace = try library.samples(of: id).map { ForceSample(micros: $0.micros, kilograms: $0.kilograms) }
        do throws(BodyWeightHang.Problem) {
            let kilograms = try BodyWeightHang.kilograms(trace: trace, onsetMicros: hang.startMicros, endMicros: hang.endMicros)
            // Stored as the device measured it, to 0.1 kg: finer than any scale, and what `show` prints.
            return (kilograms * 10).rounded() / 10
        } catch {
            throw CLIExit.invalidInput.fail("no body weight from recording \(id): \(error)")
        }
    }
}

/// `griptrack label --json`.
struct LabelJSON: Encodable {
    var recording: ListJSON.Item
    var database: DatabaseChoice
}
