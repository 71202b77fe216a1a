import Foundation
import GripAnalysis

/// One request a client sends to griptrackd, one JSON line each (docs/protocol.md, "Requests").
///
/// The one typed form of a request: clients write it with ``line``, the daemon reads it with
/// ``decode(_:now:)``, which checks every field once, so the daemon's threads only ever see valid requests.
package enum DaemonRequest: Equatable, Sendable {
    /// WATCH: start (or stop) the live stream; `pace` nil keeps the connection's pace.
    case watch(enable: Bool, pace: WatchPace?)
    /// STATUS: device, recorder, access, clients and sync in one reply.
    case status
    /// RECORD (1.1): start a recording; `save` false shows it live without storing it.
    case record(hand: Hand?, label: String?, save: Bool)
    /// STOP (1.1): end the explicit recording.
    case stop
    /// TARE: zero the device.
    case tare
    /// PRO (1.1): the plan, or an administrator's change to it.
    case pro(ProAction)
    /// LIST (1.2): the newest recordings the plan shows.
    case list(limit: Int?)
    /// SHOW (1.2): one recording with its efforts.
    case show(id: Int64)
    /// READ (1.2): a page of a recording's samples, from chunk `from`.
    case read(id: Int64, from: Int)
    /// STATS (1.2): max and average over what the plan shows.
    case stats
    /// HISTORY (1.2, Pro): every recording with its efforts.
    case history
    /// PLAN (1.2): the resolver's full answer.
    case plan
    /// DELETE (1.2, administrators): a recording with its efforts and samples.
    case delete(id: Int64)
    /// LABEL (1.6, administrators): what a recording says about itself (hand, label, athlete, grip, edge, body
    /// weight; 1.8: the protocol and its band's max); every field given replaces the stored one, an empty text
    /// clears it.
    case label(id: Int64, RecordingDescription)
    /// WEB (1.5, administrators): the web app's pairing codes and credentials.
    case web(WebAction)

    /// What a PRO request asks.
    package enum ProAction: Equatable, Sendable {
        case status
        /// A manual Pro override, until `expires` (later than when the request was read) or for ever.
        case grant(note: String?, expires: Date?)
        case revoke
        /// App Store signed data, or one part of it (`more`: further parts follow, the last one has the kind).
        case importSigned(data: String, more: Bool, kind: SignedDataImportKind)
    }

    /// What a WEB request asks.
    package enum WebAction: Equatable, Sendable {
        /// A one-time pairing code for a browser; `name` nil lets the daemon make one up.
        case pair(role: WebRole, name: String?)
        /// A bearer token for a script.
        case token(role: WebRole, name: String)
        /// Every credential, revoked ones too.
        case tokens
        case revoke(name: String)
    }

    /// The request's class, as the line names it.
    package var className: String {
        switch self {
        case .watch: "WATCH"
        case .status: "STATUS"
        case .record: "RECORD"
        case .stop: "STOP"
        case .tare: "TARE"
        case .pro: "PRO"
        case .list: "LIST"
        case .show: "SHOW"
        case .read: "READ"
        case .stats: "STATS"
        case .history: "HISTORY"
        case .plan: "PLAN"
        case .delete: "DELETE"
        case .label: "LABEL"
        case .web: "WEB"
        }
    }
}
