import Foundation

/// Buffers a recording's samples and commits them as chunks, often enough that a crash loses under a second.
///
/// A chunk is committed as soon as it spans `maxSpanMicros` of device time (default 0.5 s), or when `maxWait` of
/// host time has passed since its first sample was buffered (default 0.5 s: covers a device whose clock runs slow
/// or that sends in bursts), and on ``flush(at:)``. Half a second, not one, so a busy CPU or a slow fsync still keeps
/// the promise "committed at least once a second". Call ``flushIfDue(now:)`` from a timer if samples can stop
/// arriving while the recording stays open.
///
/// Chunks are listed in the sync outbox every `listingInterval` (default 10 s) rather than in every commit, and the
/// rest when the recording finishes: an outbox row in each commit would write more pages than the samples
/// themselves (docs/storage.md, "Bytes written"). A crash before then leaves recovery to list them.
///
/// - Important: One writer per recording, used from one thread at a time (it is not `Sendable`).
public final class ChunkWriter {
    /// The recording written to.
    public let recording: RecordingID
    /// Device-time span that triggers a commit, in µs.
    public let maxSpanMicros: Int64
    /// Host time after which buffered samples are committed.
    public let maxWait: Duration
    /// Host time after which a commit lists the chunks committed since the last listing in the sync outbox.
    public let listingInterval: Duration

    private let store: RecordingStore
    private var buffer: [StoredSample] = []
    private var bufferStartedAt: ContinuousClock.Instant?
    /// The lowest chunk sequence committed since the last listing (a trim can make later chunks reuse lower ones).
    private var earliestUnlisted: Int?
    private var listedAt: ContinuousClock.Instant

    /// Creates a writer for a recording started with ``RecordingStore/beginRecording(_:admission:)``.
    ///
    /// - Parameters:
    ///   - store: The store.
    ///   - recording: A recording in state `recording`.
    ///   - maxSpanMicros: Device-time span that triggers a commit; at most 1 s.
    ///   - maxWait: Host time after which buffered samples are committed; at most 1 s.
    ///   - listingInterval: Host time after which a commit lists the chunks committed since the last listing in the
    ///     sync outbox.
    ///   - now: Host monotonic time of creation, from which the first `listingInterval` counts.
    public init(
        store: RecordingStore, recording: RecordingID, maxSpanMicros: Int64 = 500_000,
        maxWait: Duration = .milliseconds(500), listingInterval: Duration = .seconds(10),
        now: ContinuousClock.Instant = .now
    ) {
        precondition(maxSpanMicros > 0 && maxSpanMicros <= 1_000_000, "chunks must commit at least once a second")
        precondition(maxWait > .zero && maxWait <= .seconds(1), "chunks must commit at least once a second")
        self.store = store
        self.recording = recording
        self.maxSpanMicros = maxSpanMicros
        self.maxWait = maxWait
        self.listingInterval = listingInterval
        self.listedAt = now
    }

    /// Samples buffered and not yet committed.
    public var bufferedCount: Int { buffer.count }

    /// The most samples kept while commits fail (a full disk, a read-only database): 2¹⁸ samples, 4 MiB, about
    /// 55 minutes at 80 Hz or 17 minutes at 250 Hz. Samples beyond it are not kept and are counted in
    /// ``droppedCount``: the memory a failing disk can cost stays bounded.
    public static let maxBufferedSamples = 1 << 18

    /// Samples not kept because the buffer was full while commits failed.
    public private(set) var droppedCount = 0

    /// When ``flushIfDue(now:)`` will commit the buffer (its first sample's buffering time + `maxWait`); `nil` when
    /// nothing is buffered. A caller waiting for input uses it as its timeout.
    public var flushDeadline: ContinuousClock.Instant? { bufferStartedAt.map { $0 + maxWait } }

    /// Buffers samples, then commits them if a chunk is due.
    ///
    /// - Parameters:
    ///   - samples: Samples in arrival order.
    ///   - now: Host monotonic time of the call.
    /// - Returns: The commits made (none or one).
    /// - Throws: ``GripStoreError``; every sample stays buffered (up to ``maxBufferedSamples``) and the next commit
    ///   retries them.
    @discardableResult
    public func append(
        _ samples: some Sequence<StoredSample>, now: ContinuousClock.Instant = .now
    ) throws(GripStoreError) -> [ChunkCommit] {
        hold(samples, now: now)
        guard let first = buffer.first, let last = buffer.last else { return [] }
        let (span, overflow) = last.micros.subtractingReportingOverflow(first.micros)
        let commit = overflow || span >= maxSpanMicros ? try flush(now: now) : try flushIfDue(now: now)
        return commit.map { [$0] } ?? []
    }

    /// Buffers samples without trying to commit: what a caller does while the store is failing, so a full disk
    /// costs one attempt per retry instead of one per batch.
    ///
    /// - Parameters:
    ///   - samples: Samples in arrival order.
    ///   - now: Host monotonic time of the call.
    public func hold(_ samples: some Sequence<StoredSample>, now: ContinuousClock.Instant = .now) {
        for sample in samples {
            guard buffer.count < Self.maxBufferedSamples else {
                droppedCount += 1
                continue
            }
            if buffer.isEmpty { bufferStartedAt = now }
            buffer.append(sample)
        }
    }

    /// Drops every sample after an instant, buffered or committed (the recording ended before them).
    ///
    /// - Parameter micros: The last instant to keep (stream µs).
    /// - Returns: How many samples were dropped.
    /// - Throws: ``GripStoreError``; the buffer is trimmed even then.
    @discardableResult
    public func trim(after micros: Int64) throws(GripStoreError) -> Int {
        let buffered = buffer.count
        buffer.removeAll { $0.micros > micros }
        if buffer.isEmpty { bufferStartedAt = nil }
        return buffered - buffer.count + (try store.trimSamples(of: recording, after: micros))
    }

    /// Commits the buffer if its first sample was buffered `maxWait` ago or longer.
    ///
    /// - Parameter now: Host monotonic time.
    /// - Returns: The commit, or `nil` if none was due.
    /// - Throws: ``GripStoreError``; the samples stay buffered.
    @discardableResult
    public func flushIfDue(now: ContinuousClock.Instant = .now) throws(GripStoreError) -> ChunkCommit? {
        guard let started = bufferStartedAt, now - started >= maxWait else { return nil }
        return try flush(now: now)
    }

    /// Commits every buffered sample now.
    ///
    /// - Parameters:
    ///   - date: Host wall-clock time of the commit.
    ///   - now: Host monotonic time of the commit.
    /// - Returns: The commit, or `nil` if nothing was buffered.
    /// - Throws: ``GripStoreError``; the samples stay buffered.
    @discardableResult
    public func flush(
        at date: Date = Date(), now: ContinuousClock.Instant = .now
    ) throws(GripStoreError) -> ChunkCommit? {
        guard !buffer.isEmpty else { return nil }
        let lists = now - listedAt >= listingInterval
        let listing: OutboxListing = lists ? .now(earliestUnlisted: earliestUnlisted) : .later
        guard let commit = try store.appendSamples(buffer, to: recording, at: date, listing: listing) else {
            return nil
        }
        buffer.removeAll(keepingCapacity: true)
        bufferStartedAt = nil
        if lists {
            earliestUnlisted = nil
            listedAt = now
        } else {
            earliestUnlisted = min(earliestUnlisted ?? commit.firstSequence, commit.firstSequence)
        }
        return commit
    }

    /// Commits the buffered samples, then marks the recording `complete`.
    ///
    /// - Parameters:
    ///   - summary: End time, max and average.
    ///   - efforts: Its efforts with their metrics.
    /// - Throws: ``GripStoreError``.
    public func finish(summary: RecordingSummaryValues, efforts: [StoredEffort]) throws(GripStoreError) {
        try flush()
        try store.finishRecording(recording, summary: summary, efforts: efforts, unlistedChunksFrom: earliestUnlisted)
        earliestUnlisted = nil
    }
}

/// One commit of samples to a recording.
public struct ChunkCommit: Sendable, Equatable {
    /// The recording.
    public var recording: RecordingID
    /// The sequence of the first chunk written.
    public var firstSequence: Int
    /// Chunk rows written (more than one only across a time jump).
    public var chunkCount: Int
    /// Samples committed.
    public var sampleCount: Int
    /// Device time of the first sample committed, µs.
    public var firstMicros: Int64
    /// Device time of the last sample committed, µs.
    public var lastMicros: Int64
    /// Samples of the recording committed so far, this commit included.
    public var totalSamples: Int

    /// Creates a commit report.
    ///
    /// - Parameters: See the properties.
    public init(
        recording: RecordingID, firstSequence: Int, chunkCount: Int, sampleCount: Int, firstMicros: Int64,
        lastMicros: Int64, totalSamples: Int
    ) {
        self.recording = recording
        self.firstSequence = firstSequence
        self.chunkCount = chunkCount
        self.sampleCount = sampleCount
        self.firstMicros = firstMicros
        self.lastMicros = lastMicros
        self.totalSamples = totalSamples
    }
}
