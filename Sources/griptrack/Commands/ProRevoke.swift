import ArgumentParser
import Foundation
import GripStore

extension Griptrack.Pro {
    /// `griptrack pro revoke`: removes the manual Pro override.
    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Remove the manual Pro grant (nothing is deleted; the free plan hides older recordings).")

        @OptionGroup var common: CommonOptions
        @OptionGroup var place: SocketOption

        @Option(help: ArgumentHelp("Why, for the audit log.", valueName: "text"))
        var note: String?

        func run() throws {
            let library = try LibraryChoice.open(common: common, socket: place)
            let (removed, plan) = try library.revoke(note: note)
            if common.json {
                try printJSON(ProStatusJSON(plan, database: library.database))
                return
            }
            if removed == false { print("There was no manual Pro grant to revoke.") }
            ProStatusJSON.printText(plan, database: library.database)
        }
    }
}
