import ArgumentParser

extension Griptrack {
    /// `griptrack pro`: the Pro plan — status, manual grants, App Store signed data.
    struct Pro: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pro",
            abstract: "Show or change the Pro plan (status, grant, revoke, import, verify).",
            discussion: """
                Pro comes from the configuration's [entitlements] bypass (early access), a manual grant \
                (`pro grant`), or a verified App Store subscription (`pro import`). The free plan keeps 5 \
                recordings; losing Pro deletes nothing.
                """,
            subcommands: [Status.self, Grant.self, Revoke.self, Import.self, Verify.self]
        )
    }
}
