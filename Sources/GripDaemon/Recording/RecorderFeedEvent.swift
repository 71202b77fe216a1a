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
