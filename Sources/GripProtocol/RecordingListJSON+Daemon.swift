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
            recordings: reply.recordings.map(\.item),
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

        var recordings: [DaemonRecording]
        var damaged: [Damaged]?
        var hidden: Int
    }

    /// A recording object of the daemon's replies: wall times in seconds since 1970.
    private struct DaemonRecording: Decodable {
        var id: Int64
        var uuid: String
        var startedAt: Double
        var endedAt: Double?
        var device: String
        var profile: String
        var hand: String?
        var label: String?
        var state: String
        /// Read as the CLI reads them (double, then float32): the same float for the same text.
        var maxKg: Double?
        var avgKg: Double?
        var samples: Int
        var efforts: Int
        var athlete: String?
        var grip: String?
        var edgeMm: Double?
        var bodyWeightKg: Double?
        /// 1.8: the protocol the recording ran.
        var `protocol`: String?
        var protocolMaxKg: Double?

        var item: Item {
            Item(
                id: id, uuid: uuid.lowercased(), startedAt: Date(timeIntervalSince1970: startedAt),
                endedAt: endedAt.map(Date.init(timeIntervalSince1970:)), device: device, profile: profile, hand: hand,
                label: label, state: state, efforts: efforts, samples: samples, maxKg: maxKg.map { Float($0) }, avgKg: avgKg.map { Float($0) },
                athlete: athlete, grip: grip, edgeMm: edgeMm, bodyWeightKg: bodyWeightKg, protocol: `protocol`,
                protocolMaxKg: protocolMaxKg)
        }
    }
}
