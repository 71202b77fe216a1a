import ArgumentParser
import Foundation
import GripStore

extension Griptrack.Pro {
    /// `griptrack pro status`: the resolver's reason string.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show the plan and why (the resolver's reason).")

        @OptionGroup var common: CommonOptions
        @OptionGroup var place: SocketOption

        func run() throws {
            let library = try LibraryChoice.open(common: common, socket: place)
            let plan = try library.plan()
            if common.json {
                try printJSON(ProStatusJSON(plan, database: library.database))
                return
            }
            ProStatusJSON.printText(plan, database: library.database)
            if let provenance = plan.provenance { print(provenance) }
        }
    }
}

/// `griptrack pro status --json`.
struct ProStatusJSON: Encodable {
    var tier: String
    var source: String
    var reason: String
    var expires: Date?
    var storedRecordings: Int
    var freeLimit: Int
    var freeStorage: String?
    /// Where an App Store Pro came from, when a sync brought it.
    var provenance: String?
    var database: DatabaseChoice

    init(_ plan: Plan, database: DatabaseChoice) {
        tier = plan.tier
        source = plan.source
        reason = plan.reason
        expires = plan.expires
        storedRecordings = plan.stored
        freeLimit = plan.limit
        freeStorage = plan.freeStorage
        provenance = plan.provenance
        self.database = database
    }

    /// The plan's reason and storage line; on a daemon, whose plan it is.
    static func printText(_ plan: Plan, database: DatabaseChoice) {
        print(plan.reason)
        if let storage = plan.freeStorage { print(storage) }
        if database.kind == .daemon { print("(the plan of \(database.text); the personal database keeps its own)") }
    }
}
