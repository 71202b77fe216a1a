import ArgumentParser
import Foundation

extension Griptrack.Web {
    /// `griptrack web tokens`: every web credential, never its secret.
    struct Tokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tokens",
            abstract: "List the web app's paired browsers and tokens (never their secrets).")

        @OptionGroup var place: WebSocketOption

        @Flag(help: "Print JSON.")
        var json = false

        struct Item: Encodable {
            var name: String
            var role: String
            var kind: String
            var created: Date
            var revoked: Date?
        }

        func run() async throws {
            let reply = try await WebAdmin.ask(.tokens, socket: place.path)
            let items = (reply.credentials ?? []).map { credential in
                Item(
                    name: credential.name, role: credential.role, kind: credential.kind,
                    created: Date(timeIntervalSince1970: credential.created),
                    revoked: credential.revoked.map(Date.init(timeIntervalSince1970:)))
            }
            if json {
                try printJSON(["credentials": items])
                return
            }
            guard !items.isEmpty else {
                print("No web credentials yet. Pair a browser with `griptrack web pair`.")
                return
            }
            print("name                  role    kind     created           state")
            for item in items {
                let state = item.revoked.map { "revoked " + Format.minute($0) } ?? "valid"
                print(item.name.padding(toLength: max(20, item.name.count), withPad: " ", startingAt: 0) + "  "
                    + item.role.padding(toLength: 6, withPad: " ", startingAt: 0) + "  "
                    + item.kind.padding(toLength: 7, withPad: " ", startingAt: 0) + "  " + Format.minute(item.created)
                    + "  " + state)
            }
        }
    }
}
