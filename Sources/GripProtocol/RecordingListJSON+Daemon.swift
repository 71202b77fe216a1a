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
        let reply = try decoder.decode(ListReply.self, from: list)
        let tier = try decoder.decode(PlanReply.self, from: plan).tier
        let database = version.flatMap { try? decoder.decode(DaemonMessage.Version.self, from: $0) }?.database
        self.init(
            recordings: reply.recordings.map(\.listItem),
            damaged: (reply.damaged ?? []).map { Damaged(id: $0.id, reason: $0.reason) }, hidden: reply.hidden,
            plan: tier, database: Database(kind: "daemon", path: database, socket: socket))
    }

    private struct PlanReply: Decodable {
        var tier: String
    }

    private struct ListReply: Decodable {
        struct Damaged: Decodable {
            var id: Int64?
            var reason: String
        }

        var recordings: [DaemonRecordingObject]
        var damaged: [Damaged]?
        var hidden: Int
    }
}

/// A recording object of the daemon's replies (LIST, SHOW, LABEL; docs/protocol.md), as every client decodes it
/// (snake-case keys): wall times in seconds since 1970.
package struct DaemonRecordingObject: Decodable {
    package var id: Int64
    package var uuid: String
    package var startedAt: Double
    package var endedAt: Double?
    package var device: String
    package var profile: String
    package var hand: String?
    package var label: String?
    package var state: String
    /// Read as the CLI reads them (double, then float32): the same float for the same text.
    package var maxKg: Double?
    package var avgKg: Double?
    package var samples: Int
    package var efforts: Int
    package var athlete: String?
    package var grip: String?
    package var edgeMm: Double?
    package var bodyWeightKg: Double?
    /// 1.8: the protocol the recording ran.
    package var `protocol`: String?
    package var protocolMaxKg: Double?

    package var listItem: RecordingListJSON.Item {
        RecordingListJSON.Item(
            id: id, uuid: uuid.lowercased(), startedAt: Date(timeIntervalSince1970: startedAt),
            endedAt: endedAt.map(Date.init(timeIntervalSince1970:)), device: device, profile: profile, hand: hand,
            label: label, state: state, efforts: efforts, samples: samples, maxKg: maxKg.map { Float($0) }, avgKg: avgKg.map { Float($0) },
            athlete: athlete, grip: grip, edgeMm: edgeMm, bodyWeightKg: bodyWeightKg, protocol: `protocol`,
            protocolMaxKg: protocolMaxKg)
    }
}
