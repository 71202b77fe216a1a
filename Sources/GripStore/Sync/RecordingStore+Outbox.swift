import Foundation
import GRDB

/// The sync outbox (docs/sync.md): what the sync client reads, ships and acknowledges. Rows are written by the
/// store's own change points (``OutboxChange``); nothing here changes a recording.
extension RecordingStore {
    /// The oldest unacknowledged outbox rows, in id order.
    ///
    /// - Parameters:
    ///   - after: Only rows with a higher id (a push that kept rows back continues after them).
    ///   - limit: At most this many rows.
    ///   - kind: Only rows of this kind (a device on the free plan ships only its entitlement rows); `nil` for all.
    /// - Returns: The rows; empty when everything was shipped.
    /// - Throws: An SQLite error, or SQLITE_CORRUPT (11) for a row whose kind or UUID does not parse.
    public func pendingOutbox(
        after: Int64 = 0, limit: Int, only kind: OutboxEntry.Kind? = nil
    ) throws(GripStoreError) -> [OutboxEntry] {
        try read("read the sync outbox") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, kind, recordingUUID, firstSequence, lastSequence, payload, at
                    FROM syncOutbox WHERE id > ? AND (? IS NULL OR kind = ?) ORDER BY id LIMIT ?
                    """,
                arguments: [after, kind?.rawValue, kind?.rawValue, max(0, limit)])
            return try rows.map { row in
                let kindText: String = row["kind"]
                guard let kind = OutboxEntry.Kind(rawValue: kindText) else {
                    throw Self.damagedOutbox("kind \"\(kindText)\"")
                }
                var uuid: UUID?
                if let text: String = row["recordingUUID"] {
                    guard let parsed = UUID(uuidString: text) else { throw Self.damagedOutbox("uuid \"\(text)\"") }
                    uuid = parsed
                }
                var sequences: ClosedRange<Int>?
                if let first: Int = row["firstSequence"], let last: Int = row["lastSequence"], first <= last {
                    sequences = first...last
                }
                return OutboxEntry(
                    id: row["id"], kind: kind, recordingUUID: uuid, sequences: sequences, payload: row["payload"],
                    at: row["at"])
            }
        }
    }

    /// Removes every outbox row up to `id` and records a successful push. Call it only after the server has
    /// committed those rows: a crash before this call ships them again, which the server's upserts absorb.
    ///
    /// - Parameters:
    ///   - id: The highest row id the server committed.
    ///   - keeping: Recordings whose rows stay (the server refused them); their rows are not removed.
    ///   - date: When the push finished.
    /// - Returns: How many rows were removed.
    /// - Throws: An SQLite error.
    @discardableResult
    public func acknowledgeOutbox(
        upTo id: Int64, keeping: Set<UUID> = [], at date: Date = Date()
    ) throws(GripStoreError) -> Int {
        try writeImmediate("acknowledge the sync outbox") { db in
            let kept = keeping.map { $0.uuidString.lowercased() }
            try db.execute(
                sql: """
                    DELETE FROM syncOutbox
                    WHERE id <= ? AND (recordingUUID IS NULL OR recordingUUID NOT IN (SELECT value FROM json_each(?)))
                    """,
                arguments: [id, String(decoding: try JSONEncoder().encode(kept), as: UTF8.self)])
            let removed = db.changesCount
            try Self.saveSyncStatus(db, success: date, removed: removed)
            return removed
        }
    }

    /// Removes the entitlement rows up to `id` once the server has committed them, and nothing else: a device on
    /// the free plan ships its subscription changes (the mirror must see a downgrade too) while its recordings wait
    /// for Pro. The push as a whole is still refused, so no success is recorded.
    ///
    /// - Parameter id: The highest entitlement row id the server committed.
    /// - Returns: How many rows were removed.
    /// - Throws: An SQLite error.
    @discardableResult
    public func acknowledgeEntitlementOutbox(upTo id: Int64) throws(GripStoreError) -> Int {
        try writeImmediate("acknowledge the sync outbox") { db in
            try db.execute(sql: "DELETE FROM syncOutbox WHERE id <= ? AND kind = 'entitlement'", arguments: [id])
            let removed = db.changesCount
            try db.execute(
                sql: """
                    INSERT INTO syncStatus (id, rowsSent) VALUES (1, ?)
                    ON CONFLICT (id) DO UPDATE SET rowsSent = syncStatus.rowsSent + excluded.rowsSent
                    """,
                arguments: [removed])
            return removed
        }
    }

    /// Records a push that found nothing to ship (a success, for `sync status`).
    ///
    /// - Parameter date: When.
    /// - Throws: An SQLite error.
    public func recordSyncSuccess(at date: Date = Date()) throws(GripStoreError) {
        try writeImmediate("save the sync status") { db in try Self.saveSyncStatus(db, success: date, removed: 0) }
    }

    /// Records why a push failed (the outbox stays as it is).
    ///
    /// - Parameters:
    ///   - message: What went wrong, as shown to the user.
    ///   - date: When.
    /// - Throws: An SQLite error.
    public func recordSyncFailure(_ message: String, at date: Date = Date()) throws(GripStoreError) {
        try writeImmediate("save the sync status") { db in
            try db.execute(
                sql: """
                    INSERT INTO syncStatus (id, lastErrorAt, lastError) VALUES (1, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET lastErrorAt = excluded.lastErrorAt, lastError = excluded.lastError
                    """,
                arguments: [date, message])
        }
    }

    /// The outbox's size and the last push's outcome.
    ///
    /// - Returns: Pending rows, oldest pending change, last success and last error.
    /// - Throws: An SQLite error.
    public func syncStatus() throws(GripStoreError) -> SyncStatus {
        try read("read the sync status") { db in
            let outbox = try Row.fetchOne(db, sql: "SELECT COUNT(*), MIN(at) FROM syncOutbox")
            let status = try Row.fetchOne(
                db, sql: "SELECT lastSuccessAt, lastErrorAt, lastError, rowsSent FROM syncStatus WHERE id = 1")
            return SyncStatus(
                pendingRows: outbox?[0] ?? 0, oldestPendingAt: outbox?[1], lastSuccessAt: status?[0],
                lastErrorAt: status?[1], lastError: status?[2], rowsSent: status?[3] ?? 0)
        }
    }

    // MARK: - Reading what a row names

    /// A recording and its efforts by UUID, as the sync client ships them.
    ///
    /// - Parameter uuid: The recording's UUID.
    /// - Returns: The row and efforts, or `nil` when it was deleted since.
    /// - Throws: An SQLite error.
    public func syncRecording(uuid: UUID) throws(GripStoreError) -> SyncRecording? {
        let found = try read("read a recording for sync") { db -> (id: Int64, chunks: Int)? in
            guard let id = try Int64.fetchOne(
                db, sql: "SELECT id FROM recording WHERE uuid = ?", arguments: [uuid.uuidString.lowercased()])
            else { return nil }
            let chunks = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM sampleChunk WHERE recordingId = ?", arguments: [id]) ?? 0
            return (id, chunks)
        }
        guard let found else { return nil }
        let recordingID = RecordingID(rawValue: found.id)
        guard let row = try recording(recordingID) else { return nil }
        return SyncRecording(row: row, efforts: try efforts(of: recordingID), chunkCount: found.chunks)
    }

    /// Stored chunks of a recording, bytes as stored.
    ///
    /// - Parameters:
    ///   - uuid: The recording's UUID.
    ///   - sequences: Which chunks; `nil` for all.
    /// - Returns: The chunks in sequence order (empty for a deleted recording).
    /// - Throws: An SQLite error.
    public func rawChunks(of uuid: UUID, sequences: ClosedRange<Int>? = nil) throws(GripStoreError) -> [RawSampleChunk] {
        try read("read sample chunks for sync") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT sampleChunk.sequence, sampleChunk.encoding, sampleChunk.firstMicros, sampleChunk.sampleCount,
                           sampleChunk.samples
                    FROM sampleChunk JOIN recording ON recording.id = sampleChunk.recordingId
                    WHERE recording.uuid = ? AND sampleChunk.sequence BETWEEN ? AND ?
                    ORDER BY sampleChunk.sequence
                    """,
                arguments: [uuid.uuidString.lowercased(), sequences?.lowerBound ?? 0, sequences?.upperBound ?? Int.max])
            return rows.map {
                RawSampleChunk(sequence: $0[0], encoding: $0[1], firstMicros: $0[2], sampleCount: $0[3], bytes: $0[4])
            }
        }
    }

    /// The UUIDs of every stored recording, oldest first (tests and checks compare them with the server).
    ///
    /// - Returns: The UUIDs.
    /// - Throws: An SQLite error.
    public func recordingUUIDs() throws(GripStoreError) -> [UUID] {
        try read("list recording UUIDs") { db in
            try String.fetchAll(db, sql: "SELECT uuid FROM recording ORDER BY id").compactMap(UUID.init(uuidString:))
        }
    }

    private static func saveSyncStatus(_ db: Database, success date: Date, removed: Int) throws {
        try db.execute(
            sql: """
                INSERT INTO syncStatus (id, lastSuccessAt, rowsSent) VALUES (1, ?, ?)
                ON CONFLICT (id) DO UPDATE SET lastSuccessAt = excluded.lastSuccessAt,
                                               rowsSent = syncStatus.rowsSent + excluded.rowsSent
                """,
            arguments: [date, removed])
    }

    private static func damagedOutbox(_ detail: String) -> GripStoreError {
        .sqlite(operation: "read the sync outbox", code: 11, extendedCode: 11, message: "an outbox row is damaged: \(detail)")
    }
}
