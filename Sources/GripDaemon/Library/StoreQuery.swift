import Foundation
import GripStore

/// A read of the daemon's recordings or entitlement state (protocol 1.2), answered by the `StoreReader` thread.
enum StoreQuery: Sendable, Equatable {
    /// LIST: the newest recordings the daemon's plan shows, at most `limit` of them.
    case list(limit: Int?)
    /// SHOW: one recording's row and efforts.
    case show(RecordingID)
    /// READ: one page of a recording's samples, from chunk `fromSequence`.
    case read(RecordingID, fromSequence: Int)
    /// STATS: max and average over what the plan shows.
    case stats
    /// HISTORY (Pro): every recording with its efforts, for trends and comparisons.
    case history
    /// PLAN: the resolver's full answer.
    case plan
}

/// A query and who asked.
struct StoreJob: Sendable {
    var client: ClientReference
    var query: StoreQuery
}

/// A change to the daemon's recordings or entitlement state (protocol 1.2), applied on the recorder thread, the
/// store's only writer.
enum StoreChange: Sendable {
    /// DELETE: a recording with its efforts and samples.
    case delete(RecordingID)
    /// PRO import: App Store signed data the daemon has verified itself.
    case importSigned(ImportedSignedData)
    /// LABEL (1.6): hand, label, athlete, grip, edge depth, body weight.
    case describe(RecordingID, RecordingDescription)
}

/// The machine-readable `code` of an `ERROR` reply to a 1.2 request.
enum StoreErrorCode: String, Sendable {
    /// The peer may not make this request.
    case notAuthorized = "not_authorized"
    /// The daemon's plan does not include this (Pro, or a recording the free plan hides).
    case proRequired = "pro_required"
    /// No such recording.
    case notFound = "not_found"
    /// A field is missing or malformed.
    case invalid = "invalid"
    /// The recording is being recorded right now.
    case busy = "busy"
    /// The database failed.
    case store = "store"
    /// PRO import: the signed data did not verify.
    case rejected = "rejected"
}

/// A 1.2 request that could not be served: the `ERROR` line's message and code.
struct StoreProblem: Error, Equatable {
    var code: StoreErrorCode
    var message: String

    var line: String { ProtocolMessage.error(message, code: code.rawValue) }
}

/// Checks the fields of the 1.2 store requests on the socket thread.
enum StoreRequestParser {
    /// The recording id of SHOW, READ and DELETE.
    static func recordingID(_ id: Int64?, for name: String) -> Result<RecordingID, StoreProblem> {
        guard let id, id > 0 else {
            return .failure(StoreProblem(code: .invalid, message: "\(name) needs \"id\": a recording id (a positive integer)"))
        }
        return .success(RecordingID(rawValue: id))
    }

    /// The query for a read request, or nil when `name` is not one.
    static func query(class name: String, id: Int64?, from: Int?, limit: Int?) -> Result<StoreQuery, StoreProblem>? {
        switch name {
        case "LIST":
            if let limit, limit < 1 {
                return .failure(StoreProblem(code: .invalid, message: "limit must be at least 1, got \(limit)"))
            }
            return .success(.list(limit: limit))
        case "SHOW":
            return recordingID(id, for: name).map { .show($0) }
        case "READ":
            if let from, from < 0 {
                return .failure(StoreProblem(code: .invalid, message: "from must be 0 or a READ reply's next, got \(from)"))
            }
            return recordingID(id, for: name).map { .read($0, fromSequence: from ?? 0) }
        case "STATS": return .success(.stats)
        case "HISTORY": return .success(.history)
        case "PLAN": return .success(.plan)
        default: return nil
        }
    }
}
