/// What a web credential lets its holder do (docs/web.md, "Roles"); each role includes the ones before it.
package enum WebRole: String, Sendable, CaseIterable, Comparable, Codable {
    /// The live view and the history.
    case watch
    /// Also start and stop recordings, label them, tare the device.
    case record
    /// Also what the daemon keeps for its administrators.
    case admin

    private var rank: Int {
        switch self {
        case .watch: 0
        case .record: 1
        case .admin: 2
        }
    }

    package static func < (lhs: WebRole, rhs: WebRole) -> Bool { lhs.rank < rhs.rank }
}
