import ArgumentParser
import Foundation
import GripStore

extension Griptrack.Pro {
    /// `griptrack pro grant`: a manual Pro override.
    struct Grant: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "grant",
            abstract: "Grant Pro by hand (replaces an earlier grant; written to the audit log).")

        @OptionGroup var common: CommonOptions
        @OptionGroup var place: SocketOption

        @Option(help: ArgumentHelp("Why, shown in the status (e.g. \"PT partner\").", valueName: "text"))
        var note: String?

        @Option(help: ArgumentHelp("When it ends: YYYY-MM-DD (UTC midnight) or ISO 8601. Default: never.", valueName: "date"))
        var expires: DateArgument?

        func run() throws {
            let now = Date()
            if let expires, expires.date <= now {
                throw CLIExit.usage.fail("--expires \(Format.day(expires.date)) is in the past; give a later date")
            }
            let library = try LibraryChoice.open(common: common, socket: place)
            let plan = try library.grant(note: note, expires: expires?.date)
            if common.json {
                try printJSON(ProStatusJSON(plan, database: library.database))
            } else {
                print(plan.reason)
                if library.database.kind == .daemon { print("(granted in \(library.database.text))") }
            }
        }
    }
}
