import Foundation
import GripAnalysis
import GripStore
import GripStream

/// What the socket thread asks of the recorder (RECORD, STOP, PRO, a disconnect, a STATUS read).
enum RecorderRequest: Sendable {
    /// RECORD: start an explicit recording (or take over the automatic one).
    case record(ClientReference, hand: Hand?, label: String?, save: Bool)
    /// STOP: end the open recording.
    case stop(ClientReference)
    /// PRO status / grant / revoke; the socket thread has already checked that the peer may ask.
    case pro(ClientReference, ProRequest)
    /// The client disconnected: an explicit recording it started stops.
    case clientGone(id: Int)
    /// Re-read access (STATUS asked; the stored count may have changed outside the daemon).
    case refreshAccess
    /// DELETE or PRO import (protocol 1.2): applied by `StoreChanges`; the recorder is the store's only writer.
    case change(ClientReference, StoreChange)
}
