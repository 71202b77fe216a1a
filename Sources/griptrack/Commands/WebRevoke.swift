import ArgumentParser
import Foundation

extension Griptrack.Web {
    /// `griptrack web revoke NAME`: a paired browser or token stops working at once.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Revoke a paired browser or token; it stops working at once, open live views included.")

        @OptionGroup var place: WebSocketOption

        @Argument(help: ArgumentHelp("The name `griptrack web tokens` lists.", valueName: "name"))
        var name: String

        func run() async throws {
            _ = try await WebAdmin.ask(.revoke(name: name), socket: place.path)
            print("Revoked \(name).")
        }
    }
}
