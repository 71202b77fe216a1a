import ArgumentParser
import Foundation
import GripStore

extension Griptrack {
    /// `griptrack delete <id>`: remove a recording with its samples, freeing its slot.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a recording with its efforts and samples.",
            discussion: """
                Frees one of the free plan's 5 slots. Asks for confirmation on a terminal; pass --yes to skip it \
                (required when standard input is not a terminal). Ids are never reused.
                """
        )

        @OptionGroup var common: CommonOptions

        @Argument(help: "The recording's id (see `griptrack list`).")
        var id: RecordingIDArgument

        @Flag(name: .shortAndLong, help: "Do not ask for confirmation.")
        var yes = false

        func run() throws {
            let session = try common.session()
            let store = session.store
            guard let row = try storeCall({ () throws(GripStoreError) in try store.recording(id.id) }) else {
                throw CLIExit.error.fail(GripStoreError.recordingNotFound(id.id).description)
            }
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    throw CLIExit.usage.fail("not deleting recording \(row.id) without confirmation: pass --yes")
                }
                print("Delete recording \(row.id) (\(Format.minute(row.startedAt)), \(row.effortCount) efforts, "
                      + "max \(Format.kg(row.maxKilograms)))? This cannot be undone. [y/N] ", terminator: "")
                guard let answer = readLine()?.lowercased(), answer == "y" || answer == "yes" else {
                    print("Nothing deleted.")
                    return
                }
            }
            _ = try storeCall { () throws(GripStoreError) in try store.delete(row.id) }
            if common.json {
                try printJSON(["deleted": row.id.rawValue])
            } else {
                print("Deleted recording \(row.id).")
            }
        }
    }
}
