import ArgumentParser
import Foundation
import GripSync

extension Griptrack.Admin {
    /// `griptrack admin account`: accounts and their PostgreSQL roles.
    struct Account: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "account", abstract: "Create accounts, each with its own PostgreSQL role.",
            subcommands: [Create.self])
    }
}

extension Griptrack.Admin.Account {
    /// `griptrack admin account create NAME`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create an account and its PostgreSQL role; print the role's credentials and the account's UUID.",
            discussion: """
                The role reads and writes only the account's rows (row-level security: recordings, chunks, \
                tombstones, subscription rows, its App Store notifications and grants). Put the role and password \
                in the account's Pis' [sync] url and password_file, and the UUID in the app as appAccountToken. \
                The password is shown once. The operator role ([hub] url) needs CREATEROLE.
                """)

        @OptionGroup var options: AdminOptions

        @Argument(help: ArgumentHelp("The account's name ([sync] account on its Pis).", valueName: "name"))
        var name: String

        func run() async throws {
            let credentials: AccountCredentials
            do {
                credentials = try await options.database().createAccount(name)
            } catch let error as SyncError {
                throw SyncSetup.exit(error, operator: true)
            }
            if options.json {
                try printJSON(credentials)
                return
            }
            print("Account \(credentials.account) created.")
            print("  UUID (the app's appAccountToken): \(credentials.uuid.uuidString.lowercased())")
            print("  PostgreSQL role: \(credentials.role)")
            print("  Password (shown once): \(credentials.password)")
            print("  Referral code: \(credentials.referralCode)")
            print("On each of its Pis: [sync] account = \"\(credentials.account)\", the role in [sync] url, the password "
                + "in [sync] password_file (chmod 600).")
        }
    }
}
