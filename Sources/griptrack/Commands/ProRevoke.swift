import ArgumentParser
import Foundation
import GripStore

extension Griptrack.Pro {
    /// `griptrack pro revoke`: removes the manual Pro override.
    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove the manual Pro grant (nothing is deleted; the free plan hides older recordings).")

        @OptionGroup var common: CommonOptions

        @Option(help: ArgumentHelp("Why, for the audit log.", valueName: "text"))
        var note: String?

        func run() throws {
            let session = try common.session()
            let now = Date()
            let removed = try storeCall { () throws(GripStoreError) in
                try session.store.clearManualOverride(by: currentUser, note: note, at: now)
            }
            let status = try session.status(now: now)
            if common.json {
                try printJSON(ProStatusJSON(status))
                return
            }
            if !removed { print("There was no manual Pro grant to revoke.") }
            print(status.access.reason)
            if let storage = status.freeStorage { print(storage) }
        }
    }
}
