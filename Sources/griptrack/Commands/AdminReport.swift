import ArgumentParser
import Foundation
import GripSync

extension Griptrack.Admin {
    /// `griptrack admin report [--json]`.
    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "Show every account: devices, recordings, samples, Pro devices, its newest App Store notification.",
            discussion: """
                Reads the dashboard_accounts view (docs/account.md, "Dashboard") with the operator role of \
                [hub] url. --json prints one object per account for scripts.
                """)

        @OptionGroup var options: AdminOptions

        func run() async throws {
            let lines: [AccountReport]
            do {
                lines = try await options.database().report()
            } catch let error as SyncError {
                throw SyncSetup.exit(error, operator: true)
            }
            if options.json {
                try printJSON(["accounts": lines])
                return
            }
            guard !lines.isEmpty else {
                print("No accounts yet; create one with `griptrack admin account create NAME`.")
                return
            }
            print("account               devices  recordings     samples  pro  last push         App Store")
            for line in lines {
                let push = line.lastPush.map { Format.day($0) } ?? "never"
                let store = line.lastNotification.map { type in
                    type + (line.subscriptionExpires.map { ", expires \(Format.day($0))" } ?? "")
                } ?? "-"
                print(
                    Self.left(line.account, 20) + "  "
                        + Self.right(line.devices, 7) + "  " + Self.right(line.recordings, 10) + "  "
                        + Self.right(line.samples, 10) + "  " + Self.right(line.proDevices, 3) + "  "
                        + Self.left(push, 16) + "  " + store)
            }
        }

        /// Padded to `width`, never cut (a long name pushes its line's columns right).
        static func left(_ text: String, _ width: Int) -> String {
            text + String(repeating: " ", count: max(0, width - text.count))
        }

        static func right(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: " ", count: max(0, width - text.count)) + text
        }
    }
}
