import ArgumentParser
import Foundation
import GripEntitlements

extension Griptrack.Admin {
    /// `griptrack admin grant ACCOUNT --note … [--expires …] --key FILE`.
    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "grant",
            abstract: "Grant Pro to every Pi of an account (signed with the operator key).",
            discussion: """
                Signs a grant and stores it on the server; each Pi of ACCOUNT whose [sync] operator_key is this \
                key's public half applies it at its next sync. It replaces the account's earlier central grant.
                """)

        @OptionGroup var options: AdminOptions

        @Argument(help: ArgumentHelp("The account ([sync] account on its Pis).", valueName: "account"))
        var account: String

        @Option(help: ArgumentHelp("Why, shown in `pro status` on the Pis (e.g. \"PT partner\").", valueName: "text"))
        var note: String

        @Option(help: ArgumentHelp("When it ends: YYYY-MM-DD (UTC midnight) or ISO 8601. Default: never.", valueName: "date"))
        var expires: DateArgument?

        func run() async throws {
            let now = Date()
            if let expires, expires.date <= now {
                throw CLIExit.usage.fail("--expires \(Format.day(expires.date)) is in the past; give a later date")
            }
            try await AdminStatement.publish(
                OperatorStatement(account: account, action: .grant, note: note, expires: expires?.date, issued: now),
                options: options)
        }
    }

    /// `griptrack admin revoke ACCOUNT --key FILE`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "End an account's central Pro grant on every Pi (signed with the operator key).",
            discussion: """
                Pis apply it at their next sync. A grant made on a Pi itself (`griptrack pro grant`) stays: it is \
                that device's.
                """)

        @OptionGroup var options: AdminOptions

        @Argument(help: ArgumentHelp("The account.", valueName: "account"))
        var account: String

        @Option(help: ArgumentHelp("Why (kept in the Pis' audit log).", valueName: "text"))
        var note: String = ""

        func run() async throws {
            try await AdminStatement.publish(
                OperatorStatement(account: account, action: .revoke, note: note, expires: nil, issued: Date()),
                options: options)
        }
    }
}

/// Signing and storing one statement, and saying so.
enum AdminStatement {
    static func publish(_ statement: OperatorStatement, options: AdminOptions) async throws {
        let key = try options.signingKey()
        let database = try options.database()
        let signed: String
        do {
            signed = try statement.signed(with: key)
        } catch {
            throw CLIExit.error.fail("cannot sign the statement: \(error)")
        }
        do {
            try await database.publish(statement, signed: signed)
        } catch {
            throw SyncSetup.exit(error, operator: true)
        }
        if options.json {
            try printJSON(AdminStatementJSON(statement))
            return
        }
        let what = statement.action == .grant ? "Pro granted to" : "Central Pro grant revoked for"
        let until = statement.expires.map { " until \(Format.day($0))" } ?? ""
        print("\(what) account \(statement.account)\(until); its Pis apply it at their next sync.")
    }
}

/// `admin grant --json` and `admin revoke --json`.
struct AdminStatementJSON: Encodable {
    var id: String
    var account: String
    var action: String
    var note: String
    var expires: Date?
    var issued: Date

    init(_ statement: OperatorStatement) {
        id = statement.id.uuidString.lowercased()
        account = statement.account
        action = statement.action.rawValue
        note = statement.note
        expires = statement.expires
        issued = statement.issued
    }
}
