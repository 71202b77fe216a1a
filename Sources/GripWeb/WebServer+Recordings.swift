import Foundation
import GripProtocol
import Hummingbird
import NIOCore

/// `GET /api/recordings` (docs/web.md, "The recordings list").
extension WebServer {
    /// `griptrack list`'s page without `--all`: the newest 20 (the daemon's plan may show fewer).
    static let listPageSize = 20

    /// `GET /api/recordings`: what `griptrack list --json` prints when it asks this daemon (``RecordingListJSON``,
    /// written by the same encoder), from the daemon's VERSION, LIST and PLAN on one connection.
    func recordings(limit: Int) async throws -> Response {
        let (version, replies) = try await DaemonLink.exchange(path: settings.socketPath, [.list(limit: limit), .plan])
        for reply in replies { _ = try Self.reply(reply) }  // an ERROR becomes its status
        let list: RecordingListJSON
        do {
            list = try RecordingListJSON(
                list: Data(replies[0].readableBytesView), plan: Data(replies[1].readableBytesView),
                version: version.map { Data($0.readableBytesView) }, socket: settings.socketPath)
        } catch {
            logger.info("Unreadable LIST or PLAN reply", metadata: ["web.error": "\(error)"])
            throw WebError.daemon(status: .badGateway, message: "griptrackd sent a LIST or PLAN reply this web app cannot read")
        }
        return try Self.document(list)
    }
}
