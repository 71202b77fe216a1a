import ArgumentParser
import Foundation
import GripProtocol

extension Griptrack.Web {
    /// `griptrack web token`: bearer tokens for scripts.
    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Create bearer tokens for scripts (token create).",
            subcommands: [Create.self])
    }
}

extension Griptrack.Web.Token {
    /// `griptrack web token create`: prints a new bearer token once.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a bearer token for the web app's API and print it (it is shown only this once).",
            discussion: "Send it as `Authorization: Bearer TOKEN`. Only its SHA-256 is stored; revoke it with `griptrack web revoke NAME`.")

        @OptionGroup var place: WebSocketOption

        @Option(help: ArgumentHelp("What the token may do: watch, record or admin.", valueName: "role"))
        var role: WebRole

        @Option(help: ArgumentHelp("The token's name, e.g. grafana.", valueName: "name"))
        var name: String

        @Flag(help: "Print JSON.")
        var json = false

        func run() async throws {
            let reply = try await WebAdmin.ask(.token(role: role, name: name), socket: place.path)
            guard let token = reply.token else { throw CLIExit.error.fail("griptrackd sent no token") }
            if json {
                try printJSON(["name": name, "role": role.rawValue, "token": token])
            } else {
                print(token)
            }
        }
    }
}
