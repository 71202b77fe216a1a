import Foundation

/// One row of the sync outbox: what changed, not the data. The sync client reads the data from the store when it
/// ships the row, so a row shipped twice carries the same (current) state both times (docs/sync.md).
public struct OutboxEntry: Sendable, Equatable {
    /// What kind of change a row records.
    public enum Kind: String, Sendable, Equatable {
        /// A recording started, finished, was described, recovered or re-analysed: ship its summary and efforts.
        case recording
        /// Sample chunks were committed: ship the chunks ``sequences`` (and the summary).
        case chunks
        /// A recording was deleted: ship a tombstone.
        case deleted
        /// The entitlement state changed: ship ``payload`` (the resolver's answer after the change).
        case entitlement
    }

    /// Monotonic (SQLite AUTOINCREMENT: never reused, even after deletes); ship in this order.
    public var id: Int64
    public var kind: Kind
    /// The recording, for every kind but ``Kind/entitlement``.
    public var recordingUUID: UUID?
    /// The chunks committed, for ``Kind/chunks``.
    public var sequences: ClosedRange<Int>?
    /// JSON (an ``EntitlementChange``), for ``Kind/entitlement``.
    public var payload: String?
    /// Host wall-clock time of the change.
    public var at: Date

    /// Creates an entry (the store makes these).
    /// - Parameters: See the properties.
    public init(id: Int64, kind: Kind, recordingUUID: UUID?, sequences: ClosedRange<Int>?, payload: String?, at: Date) {
        self.id = id
        self.kind = kind
        self.recordingUUID = recordingUUID
        self.sequences = sequences
        self.payload = payload
        self.at = at
    }
}

/// The payload of an ``OutboxEntry/Kind/entitlement`` row: the resolver's answer right after a change, computed
/// inside the transaction that made it. It is a mirror for dashboards; nothing reads it back to decide access.
public struct EntitlementChange: Codable, Sendable, Equatable {
    /// Unique per change, so the server keeps each event once however often it is shipped.
    public var eventID: UUID
    /// What happened: `override set`, `override cleared`, `transaction stored`, `renewal stored`,
    /// `App Store data imported`.
    public var event: String
    /// `pro` or `free`.
    public var tier: String
    /// Which rule decided (`manualOverride`, `subscription`, …, `none`).
    public var source: String
    /// The resolver's sentence.
    public var reason: String
    /// When Pro ends, if it does.
    public var expires: Date?

    /// Creates a payload.
    /// - Parameters: See the properties.
    public init(eventID: UUID, event: String, tier: String, source: String, reason: String, expires: Date?) {
        self.eventID = eventID
        self.event = event
        self.tier = tier
        self.source = source
        self.reason = reason
        self.expires = expires
    }
}

/// What `griptrack sync status` shows: the outbox's size and the last push's outcome.
public struct SyncStatus: Sendable, Equatable {
    /// Outbox rows not yet acknowledged by the server.
    public var pendingRows: Int
    /// When the oldest pending change was made.
    public var oldestPendingAt: Date?
    /// When a push last finished without error.
    public var lastSuccessAt: Date?
    /// When a push last failed, and why.
    public var lastErrorAt: Date?
    public var lastError: String?
    /// Outbox rows acknowledged since the database was created.
    public var rowsSent: Int

    /// Creates a status (the store makes these).
    /// - Parameters: See the properties.
    public init(
        pendingRows: Int, oldestPendingAt: Date?, lastSuccessAt: Date?, lastErrorAt: Date?, lastError: String?,
        rowsSent: Int
    ) {
        self.pendingRows = pendingRows
        self.oldestPendingAt = oldestPendingAt
        self.lastSuccessAt = lastSuccessAt
        self.lastErrorAt = lastErrorAt
        self.lastError = lastError
        self.rowsSent = rowsSent
    }
}

/// One stored sample chunk as the store keeps it (``SampleChunkCodec``'s bytes), for shipping unchanged.
public struct RawSampleChunk: Sendable, Equatable {
    /// Position in its recording, from 0.
    public var sequence: Int
    /// The codec version the bytes were written with.
    public var encoding: Int
    /// Device time of the first sample, µs.
    public var firstMicros: Int64
    public var sampleCount: Int
    /// The encoded samples.
    public var bytes: Data

    /// Creates a chunk value.
    /// - Parameters: See the properties.
    public init(sequence: Int, encoding: Int, firstMicros: Int64, sampleCount: Int, bytes: Data) {
        self.sequence = sequence
        self.encoding = encoding
        self.firstMicros = firstMicros
        self.sampleCount = sampleCount
        self.bytes = bytes
    }

    /// The chunk's samples, decoded as the store decodes its own (a chunk read back from the sync server).
    ///
    /// - Returns: The samples, or what is wrong with the bytes (never traps on damaged input).
    public func samples() -> Result<[StoredSample], ChunkDamage> {
        guard encoding == SampleChunkCodec.encoding else {
            return .failure(ChunkDamage(sequence: sequence, detail: "unknown encoding \(encoding)"))
        }
        return SampleChunkCodec.decode(firstMicros: firstMicros, count: sampleCount, bytes: bytes)
            .mapError { ChunkDamage(sequence: sequence, detail: $0.detail) }
    }
}

/// A sample chunk whose bytes do not decode.
public struct ChunkDamage: Error, Sendable, Equatable {
    /// The chunk's position in its recording.
    public var sequence: Int
    /// What is wrong.
    public var detail: String
}

/// A recording as the sync client ships it: the row and its efforts.
public struct SyncRecording: Sendable, Equatable {
    public var row: RecordingRow
    public var efforts: [StoredEffort]
    /// Chunks stored (sequences 0 ..< chunkCount, without gaps): the server drops any it holds beyond these.
    public var chunkCount: Int

    /// Creates a value (the store makes these).
    /// - Parameters: See the properties.
    public init(row: RecordingRow, efforts: [StoredEffort], chunkCount: Int) {
        self.row = row
        self.efforts = efforts
        self.chunkCount = chunkCount
    }
}
