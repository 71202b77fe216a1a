import ArgumentParser
import Foundation
import GripStore

extension Griptrack {
    /// `griptrack label <id>`: change who pulled and how.
    struct Label: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "label",
            abstract: "Change a recording's hand, grip, edge, athlete, body weight or label.",
            discussion: """
                Each option given replaces the stored value; an empty text (--grip "") clears it; options not given \
                keep what is stored. With griptrackd running, the daemon makes the change (it needs root or group \
                griptrack-admin, as delete does); otherwise it is made in the personal database (or --db). Prints \
                the recording as stored afterwards.
                """
        )

        @OptionGroup var common: CommonOptions
        @OptionGroup var place: SocketOption

        @Argument(help: "The recording's id (see `griptrack list`).")
        var id: RecordingIDArgument

        @OptionGroup var setup: SetupOptions

        func validate() throws {
            try setup.validate(requireOne: true)
        }

        func run() throws {
            let library = try LibraryChoice.open(common: common, socket: place)
            let row = try library.describe(id.id, setup.description)
            if common.json {
                try printJSON(LabelJSON(recording: ListJSON.Item(row), database: library.database))
            } else {
                print("Recording \(row.id): \(Format.who(row) ?? "nothing said about it")")
            }
        }
    }
}

/// `griptrack label --json`.
struct LabelJSON: Encodable {
    var recording: ListJSON.Item
    var database: DatabaseChoice
}
