import Foundation
import GripAnalysis
import GripProtocol
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
