import ArgumentParser
import Foundation
import GripStore

extension Griptrack.Pro {
    /// `griptrack pro grant`: a manual Pro override.
    struct Grant: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Grant Pro by hand (replaces an earlier grant; written to the audit log).")

        @OptionGroup var common: CommonOptions

        @Option(help: ArgumentHelp("Why, shown in the status (e.g. \"PT partner\").", valueName: "text"))
        var note: String?

        @Option(help: ArgumentHelp("When it ends: YYYY-MM-DD (UTC midnight) or ISO 8601. Default: never.", valueName: "date"))
        var expires: DateArgument?

        func run() throws {
            let session = try common.session()
            let now = Date()
            if let expires, expires.date <= now {
                throw CLIExit.usage.fail("--expires \(Format.day(expires.date)) is in the past; give a later date")
            }
            try storeCall { () throws(GripStoreError) in
                try session.store.grantPro(note: note, expires: expires?.date, by: currentUser, now: now)
            }
            let status = try session.status(now: now)
            if common.json {
                try printJSON(ProStatusJSON(status))
            } else {
                print(status.access.reason)
            }
        }
    }
}
