import Foundation
import GripStore
import Logging

/// Puts each sample where ``RecorderStateMachine/sampleRoute`` says: always in the pre-roll window, and into the
/// followed recording (counted and stored), its held-back list, or nowhere else. It also counts a live-only view's
/// samples and keeps the counts of the last recording and view it stopped following, whose reports may come after.
/// Owned by the recorder thread.
struct SampleRouter {
    private(set) var window: SampleWindow
    private(set) var followed: FollowedSamples?
    /// The sample count of the last recording no longer followed.
    private var lastFollowedSamples = 0
    /// Samples seen by the open live-only view, and by the last one closed.
    private var viewSamples: Int?
    private var lastViewSamples = 0
    /// The newest sample's stream time and the wall clock when it was routed (maps stream µs to a wall date).
    private var anchor: (micros: Int64, wall: Date)?

    init(retentionMicros: Int64, capacity: Int) {
        window = SampleWindow(retentionMicros: retentionMicros, capacity: capacity)
    }

    /// The followed recording's writer, while it is stored.
    var writer: ChunkWriter? { followed?.writer }

    /// The newest sample's stream instant.
    var newestMicros: Int64? { anchor?.micros }

    /// Routes the batch's samples in `range` (the route changes only at events, which split the ranges); returns
    /// those the followed recording's row should store.
    mutating func route(
        _ range: Range<Int>, of batch: HandOffBatch<RecorderFeedEvent>, _ route: RecorderStateMachine.SampleRoute
    ) -> [StoredSample] {
        guard !range.isEmpty else { return [] }
        anchor = (batch.micros[range.upperBound - 1], Date())
        if let count = viewSamples { viewSamples = count + range.count }
        var toStore: [StoredSample] = []
        if route != .none, followed?.writer != nil { toStore.reserveCapacity(range.count) }
        for index in range {
            let sample = StoredSample(micros: batch.micros[index], kilograms: batch.kilograms[index])
            window.append(sample)
            guard let followed else { continue }
            switch route {
            case .none:
                break
            case .inside:
                followed.count += 1
                if followed.writer != nil { toStore.append(sample) }
            case .held:
                followed.held.append(sample)
                // Stored at once too, so a crash during a rest keeps it; trimmed if the recording ends before it.
                if followed.writer != nil { toStore.append(sample) }
            }
        }
        return toStore
    }

    /// Stores `samples` in the followed recording's row; `holding`: the store refuses writes, so the writer keeps
    /// them for the retry instead of trying once per batch.
    /// - Returns: how many chunks this committed (a chunk that spans its device time is committed at once).
    func store(_ samples: [StoredSample], holding: Bool) throws(GripStoreError) -> Int {
        guard let followed, let writer = followed.writer, !samples.isEmpty else { return 0 }
        let droppedBefore = writer.droppedCount
        defer { followed.stored += samples.count - (writer.droppedCount - droppedBefore) }
        if holding {
            writer.hold(samples)
            return 0
        }
        return try writer.append(samples).count
    }

    /// Starts following a recording from `start`: the window's samples from there are already its own.
    mutating func follow(from start: Int64, logger: Logger) {
        let samples = FollowedSamples(startMicros: start)
        if let oldest = window.oldest, oldest.micros > start {
            logger.debug(
                "Recording starts before the oldest kept sample",
                metadata: ["recording.start": "\(start)", "window.oldest": "\(oldest.micros)"])
        }
        samples.count = window.samples(from: start).count
        followed = samples
    }

    /// Stores the followed recording in row `id` from now on. Returns the window's samples to store first (held-back
    /// ones too: stored like the rest, trimmed if the recording ends first), or nil when it already has its row.
    mutating func attach(_ id: RecordingID, store: RecordingStore) -> [StoredSample]? {
        guard let followed, followed.writer == nil else { return nil }
        followed.id = id
        followed.writer = ChunkWriter(store: store, recording: id)
        return Array(window.samples(from: followed.startMicros))
    }

    /// The samples stored at the attach count as the recording's.
    func countAttached() {
        guard let followed else { return }
        followed.count = max(followed.count, followed.stored)
    }

    /// Held-back samples belong to the recording up to `through` (all when nil); those after it are dropped, and
    /// trimmed from the row they were already stored in.
    func releaseHeld(through: Int64?, logger: Logger) {
        guard let followed, !followed.held.isEmpty else { return }
        let belonging = through.map { end in followed.held.filter { $0.micros <= end } } ?? followed.held
        let after = followed.held.count - belonging.count
        followed.held.removeAll()
        followed.count += belonging.count
        guard after > 0, let end = through, let writer = followed.writer else { return }
        do {
            try writer.trim(after: end)
        } catch {
            logger.warning(
                "Could not trim the idle tail after the recording's end",
                metadata: ["recording.id": "\(writer.recording.rawValue)", "error": "\(error)"])
        }
        followed.stored -= after
    }

    /// Stops following the recording; its count stays for the report that may follow.
    mutating func forget() {
        lastFollowedSamples = followed?.reported ?? 0
        followed = nil
    }

    /// A live-only view opened (its samples are counted from now) or closed (its count stays for its report).
    mutating func liveView(open: Bool) {
        if open {
            viewSamples = 0
        } else {
            lastViewSamples = viewSamples ?? 0
            viewSamples = nil
        }
    }

    /// The samples STOP and RECORDER report for a finished recording or view.
    func samples(of finished: RecorderStateMachine.Finished) -> Int {
        finished.liveView ? (viewSamples ?? lastViewSamples) : (followed?.reported ?? lastFollowedSamples)
    }

    /// The stream ended: the next one starts with an empty window.
    mutating func streamEnded() {
        window.removeAll()
    }

    /// The wall-clock time of a stream instant, from the newest sample's arrival.
    func wallClock(_ micros: Int64) -> Date {
        guard let anchor else { return Date() }
        return anchor.wall.addingTimeInterval(Double(micros &- anchor.micros) / 1_000_000)
    }
}
