import Foundation
import GRDB

extension RecordingStore {
    /// Commits samples to a recording now, in one transaction, as one or more chunks.
    ///
    /// Most callers use a ``ChunkWriter``, which batches samples into chunks of at most half a second.
    /// Samples are split into a new chunk where time goes back or jumps by 2^28 µs (268 s) or more, so any
    /// sequence of device times is stored exactly.
    ///
    /// - Parameters:
    ///   - samples: Samples in arrival order.
    ///   - id: A recording in state `recording`.
    ///   - now: Host time of the commit, kept as the recording's last commit (a recovered recording ends there).
    ///   - listing: Whether this commit lists its chunks in the sync outbox now (the default) or leaves that to a
    ///     later commit, to ``finishRecording(_:summary:efforts:unlistedChunksFrom:)`` or to crash recovery.
    /// - Returns: What was committed, or `nil` for no samples (nothing is written).
    /// - Throws: ``GripStoreError/recordingNotFound(_:)``,
    ///   ``GripStoreError/recordingNotInProgress(_:state:)``, or an SQLite error.
    @discardableResult
    public func appendSamples(
        _ samples: [StoredSample], to id: RecordingID, at now: Date = Date(), listing: OutboxListing = .now()
    ) throws(GripStoreError) -> ChunkCommit? {
        guard let first = samples.first, let last = samples.last else { return nil }
        // The live path runs this twice a second for as long as a recording lasts, so it reads and writes only the
        // columns it needs through cached statements: the record types' fetch and update re-generate their SQL and
        // round-trip every column through Codable and date formatting, which cost most of the recorder thread's
        // CPU (docs/storage.md, "CPU per commit").
        return try writeImmediate("save samples of recording \(id)") { db in
            let progress = try db.cachedStatement(
                sql: """
                    SELECT state, sampleCount,
                           (SELECT MAX(sequence) + 1 FROM sampleChunk WHERE recordingId = recording.id)
                    FROM recording WHERE id = ?
                    """)
            guard let row = try Row.fetchOne(progress, arguments: [id.rawValue]) else {
                throw GripStoreError.recordingNotFound(id)
            }
            let stateText = try row.decode(String.self, atIndex: 0)
            guard let state = RecordingState(rawValue: stateText) else {
                // SQLITE_ERROR, as a failed column decode reports it: only a damaged or foreign file gets here.
                throw GripStoreError.sqlite(
                    operation: "save samples of recording \(id)", code: 1, extendedCode: 1,
                    message: "unknown recording state '\(stateText)'")
            }
            guard state == .recording else { throw GripStoreError.recordingNotInProgress(id, state: state) }
            let sequence = try row.decode(Int?.self, atIndex: 2) ?? 0
            // A live commit spans ≤ 0.5 s; samples held while the disk was full may span most of an hour, and are
            // cut into minute-long chunks so export can page through them.
            let chunks = try Self.insertChunks(
                samples, of: id, firstSequence: sequence, maxSpanMicros: Self.heldChunkSpanMicros, db)
            if case .now(let earliestUnlisted) = listing {
                let firstListed = min(earliestUnlisted ?? sequence, sequence)
                try OutboxChange.chunks(id, firstListed...(sequence + chunks - 1)).record(db)
            }
            let totalSamples = try row.decode(Int.self, atIndex: 1) + samples.count
            // Only the two columns that change: writing every column would rewrite the recording table's index
            // entries too, two more pages in each 0.5 s commit (docs/storage.md, "Bytes written").
            try db.cachedStatement(sql: "UPDATE recording SET sampleCount = ?, lastCommitAt = ? WHERE id = ?")
                .execute(arguments: [totalSamples, StorageDate.text(now), id.rawValue])
            return ChunkCommit(
                recording: id, firstSequence: sequence, chunkCount: chunks, sampleCount: samples.count,
                firstMicros: first.micros,
                lastMicros: last.micros, totalSamples: totalSamples
            )
        }
    }

    /// Every committed sample of a recording, in the order they were appended.
    ///
    /// - Parameter id: The recording.
    /// - Returns: The samples, bit for bit as appended.
    /// - Throws: ``GripStoreError/recordingNotFound(_:)``, ``GripStoreError/corruptSampleChunk(_:sequence:detail:)``,
    ///   or an SQLite error.
    public func samples(of id: RecordingID) throws(GripStoreError) -> [StoredSample] {
        let chunks = try read("read the samples of recording \(id)") { db in
            _ = try Self.fetchRecording(db, id)
            return try Self.chunks(db, of: id)
        }
        return try Self.decode(chunks, of: id)
    }

    /// Removes the committed samples after an instant from a recording still in progress: the idle tail a recorder
    /// stored eagerly (so a crash keeps it) and that turned out to lie after the recording's end.
    ///
    /// - Parameters:
    ///   - id: A recording in state `recording`.
    ///   - micros: The last instant to keep (stream µs).
    /// - Returns: How many samples were removed.
    /// - Throws: ``GripStoreError/recordingNotInProgress(_:state:)``, ``GripStoreError/corruptSampleChunk(_:sequence:detail:)``,
    ///   or an SQLite error.
    @discardableResult
    public func trimSamples(of id: RecordingID, after micros: Int64) throws(GripStoreError) -> Int {
        try writeImmediate("trim the samples of recording \(id)") { db in
            var record = try Self.fetchRecording(db, id)
            guard record.state == .recording else { throw GripStoreError.recordingNotInProgress(id, state: record.state) }
            let candidates = try SampleChunkRecord.filter(Column("recordingId") == id.rawValue)
                .order(Column("sequence").desc).fetchAll(db)
            var removed = 0
            for chunk in candidates {
                let samples = try Self.decode([chunk], of: id)
                let kept = samples.filter { $0.micros <= micros }
                if kept.count == samples.count { break }  // chunks are in time order: nothing earlier to trim
                removed += samples.count - kept.count
                try db.execute(
                    sql: "DELETE FROM sampleChunk WHERE recordingId = ? AND sequence = ?",
                    arguments: [id.rawValue, chunk.sequence])
                if let first = kept.first {
                    try SampleChunkRecord(
                        recordingId: id.rawValue, sequence: chunk.sequence, encoding: SampleChunkCodec.encoding,
                        firstMicros: first.micros, sampleCount: kept.count, samples: SampleChunkCodec.encode(kept[...])
                    ).insert(db)
                    // The server replaces this chunk's bytes; whole chunks cut off go with the recording's count.
                    try OutboxChange.chunks(id, chunk.sequence...chunk.sequence).record(db)
                }
            }
            record.sampleCount -= removed
            try record.update(db)
            if removed > 0 { try OutboxChange.recording(id).record(db) }
            return removed
        }
    }

    static func chunks(_ db: Database, of id: RecordingID) throws -> [SampleChunkRecord] {
        try SampleChunkRecord.filter(Column("recordingId") == id.rawValue).order(Column("sequence")).fetchAll(db)
    }

    static func decode(_ chunks: [SampleChunkRecord], of id: RecordingID) throws(GripStoreError) -> [StoredSample] {
        var samples: [StoredSample] = []
        for chunk in chunks {
            guard chunk.encoding == SampleChunkCodec.encoding else {
                throw .corruptSampleChunk(id, sequence: chunk.sequence, detail: "unknown encoding \(chunk.encoding)")
            }
            switch SampleChunkCodec.decode(firstMicros: chunk.firstMicros, count: chunk.sampleCount, bytes: chunk.samples) {
            case .success(let decoded): samples += decoded
            case .failure(let failure): throw .corruptSampleChunk(id, sequence: chunk.sequence, detail: failure.detail)
            }
        }
        return samples
    }

    /// How much space a recording's samples take.
    ///
    /// - Parameter id: The recording.
    /// - Returns: Samples, chunks, and encoded sample bytes (blob bytes, excluding SQLite's per-row overhead).
    /// - Throws: ``GripStoreError/recordingNotFound(_:)`` or an SQLite error.
    public func sampleStorage(of id: RecordingID) throws(GripStoreError) -> SampleStorage {
        try read("measure the samples of recording \(id)") { db in
            _ = try Self.fetchRecording(db, id)
            // CAST: a sampleCount written as a real (a hand edit, another program) would make the SUM a real, which
            // GRDB's non-optional Int subscript traps on; cast, it reads as a (saturated) integer.
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) AS chunks, CAST(COALESCE(SUM(sampleCount), 0) AS INTEGER) AS samples,
                           COALESCE(SUM(LENGTH(samples)), 0) AS bytes
                    FROM sampleChunk WHERE recordingId = ?
                    """,
                arguments: [id.rawValue]
            )
            return SampleStorage(
                samples: row?["samples"] ?? 0, chunks: row?["chunks"] ?? 0, encodedBytes: row?["bytes"] ?? 0
            )
        }
    }

    /// Inserts `samples` as consecutive chunks numbered from `firstSequence`. A chunk ends where the codec cannot
    /// continue it (time going back or jumping) or, with `maxSpanMicros`, before it would span that much time.
    /// - Returns: How many chunks were written.
    static func insertChunks(
        _ samples: [StoredSample], of id: RecordingID, firstSequence: Int, maxSpanMicros: Int64?, _ db: Database
    ) throws -> Int {
        var sequence = firstSequence
        var start = samples.startIndex
        while start < samples.endIndex {
            var end = start + 1
            while end < samples.endIndex, SampleChunkCodec.canFollow(samples[end - 1].micros, samples[end].micros),
                maxSpanMicros.map({ samples[end].micros - samples[start].micros < $0 }) ?? true
            {
                end += 1
            }
            let run = samples[start..<end]
            // The columns of SampleChunkRecord, through a cached statement (see appendSamples).
            try db.cachedStatement(
                sql: """
                    INSERT INTO sampleChunk (recordingId, sequence, encoding, firstMicros, sampleCount, samples)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                id.rawValue, sequence, SampleChunkCodec.encoding, run[run.startIndex].micros, run.count,
                SampleChunkCodec.encode(run),
            ])
            sequence += 1
            start = end
        }
        return sequence - firstSequence
    }
}

/// When a commit's chunks are listed in the sync outbox (docs/storage.md, "Bytes written").
///
/// Listing them is an outbox row and SQLite's sequence table: two more pages in the commit, and in a live recording
/// that commits twice a second, more bytes than the samples. A ``ChunkWriter`` lists every few seconds instead, and
/// finishing or recovering a recording lists what is left.
public enum OutboxListing: Sendable, Equatable {
    /// List this commit's chunks, and with them every chunk from `earliestUnlisted` on that an earlier commit left
    /// unlisted.
    case now(earliestUnlisted: Int? = nil)
    /// Leave this commit's chunks unlisted.
    case later
}

/// What a recording's samples cost on disk.
public struct SampleStorage: Sendable, Equatable {
    /// Committed samples.
    public var samples: Int
    /// Chunk rows.
    public var chunks: Int
    /// Encoded sample bytes (the chunk blobs).
    public var encodedBytes: Int

    /// Encoded bytes per sample (0 without samples); at most 8, 6 at 80 Hz.
    public var bytesPerSample: Double { samples == 0 ? 0 : Double(encodedBytes) / Double(samples) }

    /// Creates a measurement.
    ///
    /// - Parameters:
    ///   - samples: Committed samples.
    ///   - chunks: Chunk rows.
    ///   - encodedBytes: Encoded sample bytes.
    public init(samples: Int, chunks: Int, encodedBytes: Int) {
        self.samples = samples
        self.chunks = chunks
        self.encodedBytes = encodedBytes
    }
}
