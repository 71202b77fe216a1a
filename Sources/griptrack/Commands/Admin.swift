import ArgumentParser

extension Griptrack {
    /// `griptrack admin`: the operator's commands, run on the database host (docs/account.md).
    struct Admin: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "admin",
            abstract: "Operator commands: accounts and central Pro grants signed with the operator key.",
            discussion: """
                Run by the operator, with the operator role of [hub] url and password_file (docs/config.md). \
                Grants are signed with the operator's Ed25519 key (`admin key generate`); each Pi trusts the \
                public half through [sync] operator_key and applies a grant at its next sync. A row in the \
                database without that signature grants nothing.
                """,
            subcommands: [Account.self, Key.self, Grant.self, Revoke.self, OfferCodes.self, Report.self]
        )
    }
}
