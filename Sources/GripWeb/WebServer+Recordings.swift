import Foundation
import GripProtocol
import GripStore
import Hummingbird
import NIOCore

/// `GET /api/recordings` (docs/web.md, "The recordings list").
extension WebServer {
    /// `griptrack list`'s page without `--all`: the newest 20 (the daemon's plan may show fewer).
    static let listPageSize = 20

    /// `GET /api/recordings`: what `griptrack list --json` prints when it asks this daemon (``RecordingListJSON``,
    /// written by the same encoder), from the daemon's VERSION, LIST and PLAN on one connection; with `athlete`,
    /// `hand` or `grip`, what `list --json --athlete …` prints, filtered as it filters.
    func recordings(limit: Int, filter: RecordingFilter) async throws -> Response {
        // LIST has no filter fields: a filtered list asks for every recording the plan shows and filters here, as
        // the CLI does.
        let (version, replies) = try await DaemonLink.exchange(
            path: settings.socketPath, [.list(limit: filter.isEmpty ? limit : nil), .plan])
        for reply in replies { _ = try Self.reply(reply) }  // an ERROR becomes its status
        var list: RecordingListJSON
        do {
            list = try RecordingListJSON(
                list: Data(replies[0].readableBytesView), plan: Data(replies[1].readableBytesView),
                version: version.map { Data($0.readableBytesView) }, socket: settings.socketPath)
        } catch {
            logger.info("Unreadable LIST or PLAN reply", metadata: ["web.error": "\(error)"])
            throw WebError.daemon(status: .badGateway, message: "griptrackd sent a LIST or PLAN reply this web app cannot read")
        }
        if !filter.isEmpty {
            let matching = list.recordings.filter {
                filter.matches(athlete: $0.athlete, hand: $0.hand, grip: $0.grip)
            }
            list.recordings = Array(matching.prefix(limit))
            list.hidden = matching.count - list.recordings.count
        }
        return try Self.document(list)
    }

    /// `?athlete=A&hand=H&grip=G`, as `griptrack list --athlete A --hand H --grip G` takes them.
    /// - Throws: `WebError.badRequest` for a hand that is not left, right or both.
    static func recordingFilter(_ request: Request) throws(WebError) -> RecordingFilter {
        let query = request.uri.queryParameters
        let hand = query["hand"].map(String.init)
        guard let filter = RecordingFilter(
            athlete: query["athlete"].map(String.init), handName: hand, grip: query["grip"].map(String.init))
        else { throw .badRequest("hand must be left, right or both, got \(hand ?? "")") }
        return filter
    }
}
