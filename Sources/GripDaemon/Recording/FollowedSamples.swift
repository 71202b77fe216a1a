import Foundation
import GripStore
import Logging

/// The samples of the recording the state machine follows, as the shell keeps them. Owned by the recorder thread.
final class FollowedSamples {
    /// The recording's first instant (stream µs), from the segmenter.
    let startMicros: Int64
    /// Samples inside the recording so far, and how many of them went to the store.
    var count = 0
    var stored = 0
    /// Samples the machine holds back (after an automatic recording's last effort) until the segmenter decides.
    var held: [StoredSample] = []
    /// The stored row's writer; nil for a recording that is not stored.
    var writer: ChunkWriter?
    var id: RecordingID?

    init(startMicros: Int64) {
        self.startMicros = startMicros
    }

    /// What STOP and RECORDER report: the stored samples when stored, else those counted.
    var reported: Int { writer != nil ? stored : count }
}
