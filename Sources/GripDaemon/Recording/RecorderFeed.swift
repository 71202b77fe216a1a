import Foundation
import GripAnalysis
import GripStore
import GripStream

/// What the consumer thread hands the recorder, in stream order.
enum RecorderFeedEvent: HandOffEvent {
    /// A pipeline output (samples travel in the batch's arrays).
    case output(StreamOutput)
    /// The consumer applied a recorder command; comes right after the events it caused.
    case applied(PipelineCommandOutcome)
    /// The stream ended: nothing follows, and commands are no longer applied.
    case streamEnded

    var sample: (micros: Int64, kilograms: Float)? {
        if case .output(let output) = self { return output.sample }
        return nil
    }
}

extension StreamOutput: HandOffEvent {
    var sample: (micros: Int64, kilograms: Float)? {
        if case .sample(let micros, let kilograms) = self { return (micros, kilograms) }
        return nil
    }
}

/// The recorder's feed: consumer thread → recorder thread, offered every batch whether or not anyone watches.
typealias RecorderFeed = HandOff<RecorderFeedEvent>

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

/// The PRO request's action.
enum ProRequest: Sendable, Equatable {
    case status
    /// A manual grant; `expires` nil = never.
    case grant(note: String?, expires: Date?)
    case revoke
}
