import ArgumentParser
import Foundation
import GripStore

extension Griptrack {
    /// `griptrack delete <id>`: remove a recording with its samples, freeing its slot.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a recording with its efforts and samples.",
            discussion: """
                Frees one of the free plan's 5 slots. Asks for confirmation on a terminal; pass --yes to skip it \
                (required when standard input is not a terminal). Ids are never reused.
                """
        )

        @OptionGroup var common: CommonOptions
        @OptionGroup var place: SocketOption

        @Argument(help: "The recording's id (see `griptrack list`).")
        var id: RecordingIDArgument

        @Flag(name: .shortAndLong, help: "Do not ask for confirmation.")
        var yes = false

        func run() throws {
            let library = try LibraryChoice.open(common: common, socket: place)
            let known = try library.row(id.id)
            if known == nil && library.database.kind != .daemon {
                throw CLIExit.error.fail(GripStoreError.recordingNotFound(id.id).description)
            }
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    throw CLIExit.usage.fail("not deleting recording \(id.id) without confirmation: pass --yes")
                }
                let detail = known.map {
                    " (\(Format.minute($0.startedAt)), \($0.effortCount) efforts, max \(Format.kg($0.maxKilograms)))"
                } ?? ""
                print("Delete recording \(id.id)\(detail) from \(library.database.text)? This cannot be undone. [y/N] ",
                      terminator: "")
                guard let answer = readLine()?.lowercased(), answer == "y" || answer == "yes" else {
                    print("Nothing deleted.")
                    return
                }
            }
            try library.delete(id.id)
            if common.json {
                try printJSON(DeleteJSON(deleted: id.id.rawValue, database: library.database))
            } else if library.database.kind == .daemon {
                print("Deleted recording \(id.id) from \(library.database.text).")
            } else {
                print("Deleted recording \(id.id).")
            }
        }
    }
}

/// `griptrack delete --json`.
struct DeleteJSON: Encodable {
    var deleted: Int64
    var database: DatabaseChoice
}
