import Foundation

extension RecordingListJSON {
    /// The list a client of griptrackd prints: the daemon's `LIST` and `PLAN` replies (docs/protocol.md) as
    /// `griptrack list --json` writes them when it asks a daemon, which the web app does too.
    ///
    /// - Parameters:
    ///   - list: The `LIST` reply line.
    ///   - plan: The `PLAN` reply line.
    ///   - version: The `VERSION` greeting (its `database`), if one was read.
    ///   - socket: The socket the daemon answered on.
    /// - Throws: `DecodingError` for a line that is not the reply it should be.
    package init(list: Data, plan: Data, version: Data?, socket: String) throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let reply = try decoder.decode(DaemonMessage.ListReply.self, from: list)
        let tier = try decoder.decode(DaemonMessage.PlanReply.self, from: plan).tier
        let database = version.flatMap { try? decoder.decode(DaemonMessage.Version.self, from: $0) }?.database
        self.init(
            recordings: reply.recordings.map(\.listItem),
            damaged: (reply.damaged ?? []).map { Damaged(id: $0.id, reason: $0.reason) }, hidden: reply.hidden,
            plan: tier, database: Database(kind: "daemon", path: database, socket: socket))
    }
}
