import ArgumentParser
import Foundation
import GripStore

extension Griptrack.Pro {
    /// `griptrack pro status`: the resolver's reason string.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the plan and why (the resolver's reason).")

        @OptionGroup var common: CommonOptions

        func run() throws {
            let session = try common.session()
            let status = try session.status()
            if common.json {
                try printJSON(ProStatusJSON(status))
                return
            }
            print(status.access.reason)
            if let storage = status.freeStorage { print(storage) }
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

    init(_ status: AccessStatus) {
        tier = status.access.tier.rawValue
        source = status.access.source.rawValue
        reason = status.access.reason
        expires = status.access.expires
        storedRecordings = status.storedRecordings
        freeLimit = status.freeLimit
        freeStorage = status.freeStorage
    }
}
