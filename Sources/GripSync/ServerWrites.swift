import Foundation
import GripStore
import Logging
import PostgresNIO

/// The idempotent statements a push runs inside its transaction (docs/sync.md, "Guarantees"): applying the same
/// plan twice leaves the server as applying it once.
enum ServerWrites {
    /// Chunks per server row (`sample_blocks`, server migration 6): a block's first sequence is a multiple of it,
    /// so every griptrack writing to one server cuts the same blocks, and a block re-sent replaces its own row. Fixed
    /// by the schema (the migration copies the old rows into blocks of this size): a change is a new migration.
    static let chunksPerBlock = 120

    /// A block whose chunks are not consecutive from its first sequence: the store keeps chunks without gaps
    /// (``SyncRecording/chunkCount``), so this is a damaged store, and nothing of the batch is written.
    struct BlockGap: Error, CustomStringConvertible {
        var uuid: UUID
        var sequence: Int
        var description: String {
            "the local store has no sample chunk \(sequence) of recording \(uuid) but has later ones; "
                + "run `griptrack doctor`"
        }
    }

    /// A recording the batch could not write because the server holds its UUID under another account.
    struct Conflict: Sendable, Equatable {
        var uuid: UUID
        var id: RecordingID
    }

    /// Applies the plan's statements (inside the caller's transaction).
    ///
    /// - Returns: The recordings whose UUID another account holds on the server: their upsert changed nothing.
    @discardableResult
    static func apply(
        _ plan: PushPlan, account: String, deviceName: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> [Conflict] {
        var conflicts: [Conflict] = []
        try await connection.query(
            """
            INSERT INTO devices (account, device_name) VALUES (\(account), \(deviceName))
            ON CONFLICT (account, device_name) DO UPDATE SET last_push_at = now()
            """, logger: logger)
        for item in plan.items {
            switch item {
            case .recording(let recording, let chunks, let updatedAt):
                let owned = try await upsertRecording(
                    recording, updatedAt: updatedAt, account: account, deviceName: deviceName, on: connection,
                    logger: logger)
                // Not ours (another device's UUID), tombstoned, or the server has newer state: leave it alone.
                // Another account's row is the one case that loses data without a word, so it is reported.
                guard owned else {
                    if try await heldByAnotherAccount(recording.row.uuid, account: account, on: connection, logger: logger) {
                        conflicts.append(Conflict(uuid: recording.row.uuid, id: recording.row.id))
                    }
                    continue
                }
                try await replaceEfforts(recording, on: connection, logger: logger)
                try await upsertBlocks(chunks, of: recording.row.uuid, on: connection, logger: logger)
                // Chunks beyond the device's count were cut off there since (a trimmed tail): drop the blocks that
                // hold only those here too. The block the count ends in is always in the plan (PushPlan), and
                // replacing it drops the rest.
                try await connection.query(
                    """
                    DELETE FROM sample_blocks
                    WHERE recording_uuid = \(recording.row.uuid)
                      AND first_sequence >= \(Int32(clamping: recording.chunkCount))
                    """, logger: logger)
            case .tombstone(let uuid, let deletedAt):
                try await connection.query(
                    """
                    INSERT INTO tombstones (uuid, account, device_name, deleted_at)
                    VALUES (\(uuid), \(account), \(deviceName), \(deletedAt))
                    ON CONFLICT (uuid) DO NOTHING
                    """, logger: logger)
                try await connection.query(
                    """
                    DELETE FROM recordings
                    WHERE uuid = \(uuid) AND account = \(account) AND device_name = \(deviceName)
                    """, logger: logger)
            case .entitlement(let change, let at):
                try await connection.query(
                    """
                    INSERT INTO subscription_events
                        (event_id, account, device_name, event, tier, source, reason, expires_at, at)
                    VALUES (\(change.eventID), \(account), \(deviceName), \(change.event), \(change.tier),
                            \(change.source), \(change.reason), \(change.expires), \(at))
                    ON CONFLICT (event_id) DO NOTHING
                    """, logger: logger)
                try await connection.query(
                    """
                    INSERT INTO subscription_state (account, device_name, tier, source, reason, expires_at, changed_at)
                    VALUES (\(account), \(deviceName), \(change.tier), \(change.source), \(change.reason),
                            \(change.expires), \(at))
                    ON CONFLICT (account, device_name) DO UPDATE SET
                        tier = EXCLUDED.tier, source = EXCLUDED.source, reason = EXCLUDED.reason,
                        expires_at = EXCLUDED.expires_at, changed_at = EXCLUDED.changed_at
                    WHERE subscription_state.changed_at <= EXCLUDED.changed_at
                    """, logger: logger)
            }
        }
        return conflicts
    }

    /// Whether the server holds `uuid` under an account other than `account`.
    private static func heldByAnotherAccount(
        _ uuid: UUID, account: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        let rows = try await connection.query(
            "SELECT 1 FROM recordings WHERE uuid = \(uuid) AND account <> \(account)", logger: logger)
        var found = false
        for try await _ in rows { found = true }
        return found
    }

    /// Inserts or updates the recording unless it is tombstoned, belongs to another device, or the server holds a
    /// newer change. Returns whether this device's row is now on the server.
    private static func upsertRecording(
        _ recording: SyncRecording, updatedAt: Date, account: String, deviceName: String,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        let row = recording.row
        let setup = row.setup
        let rows = try await connection.query(
            """
            INSERT INTO recordings (uuid, account, device_name, started_at, ended_at, device, profile, hand, label,
                                    state, sample_count, effort_count, max_kg, average_kg, updated_at,
                                    athlete, grip, edge_mm, body_weight_kg, protocol_notation, protocol_max_kg)
            SELECT \(row.uuid), \(account), \(deviceName), \(row.startedAt), \(row.endedAt), \(row.device),
                   \(row.profile), \(row.hand?.rawValue), \(row.label), \(row.state.rawValue), \(Int64(row.sampleCount)),
                   \(Int32(recording.efforts.count)), \(row.maxKilograms), \(row.averageKilograms), \(updatedAt),
                   \(setup.athlete), \(setup.grip), \(setup.edgeMillimetres), \(setup.bodyWeightKilograms),
                   \(setup.protocolNotation), \(setup.protocolMaxKilograms)
            WHERE NOT EXISTS (SELECT 1 FROM tombstones WHERE uuid = \(row.uuid))
            ON CONFLICT (uuid) DO UPDATE SET
                ended_at = EXCLUDED.ended_at, hand = EXCLUDED.hand, label = EXCLUDED.label, state = EXCLUDED.state,
                sample_count = EXCLUDED.sample_count, effort_count = EXCLUDED.effort_count,
                max_kg = EXCLUDED.max_kg, average_kg = EXCLUDED.average_kg, updated_at = EXCLUDED.updated_at,
                athlete = EXCLUDED.athlete, grip = EXCLUDED.grip, edge_mm = EXCLUDED.edge_mm,
                body_weight_kg = EXCLUDED.body_weight_kg, protocol_notation = EXCLUDED.protocol_notation,
                protocol_max_kg = EXCLUDED.protocol_max_kg
            WHERE recordings.account = EXCLUDED.account AND recordings.device_name = EXCLUDED.device_name
              AND recordings.updated_at <= EXCLUDED.updated_at
            RETURNING uuid
            """, logger: logger)
        var owned = false
        for try await _ in rows { owned = true }
        return owned
    }

    static func replaceEfforts(
        _ recording: SyncRecording, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let uuid = recording.row.uuid
        try await connection.query("DELETE FROM efforts WHERE recording_uuid = \(uuid)", logger: logger)
        for effort in recording.efforts {
            try await connection.query(
                """
                INSERT INTO efforts (recording_uuid, effort_index, start_micros, end_micros, peak_kg, mean_kg,
                                     duration_micros, time_to_peak_micros, rfd_kg_per_s, impulse_kg_s, baseline_kg,
                                     is_open_start, is_open)
                VALUES (\(uuid), \(Int32(effort.index)), \(effort.startMicros), \(effort.endMicros),
                        \(effort.peakKilograms), \(effort.meanKilograms), \(effort.durationMicros),
                        \(effort.timeToPeakMicros), \(effort.rfdKilogramsPerSecond), \(effort.impulseKilogramSeconds),
                        \(effort.baselineKilograms), \(effort.isOpenStart), \(effort.isOpen))
                """, logger: logger)
        }
    }

    /// Writes `chunks` (whole blocks, in sequence order: ``PushPlan``) as one row per block. A block already on the
    /// server with the same chunks is left alone (a re-sent batch); one that differs grew since (a live recording)
    /// or was rewritten on the device (a trimmed tail) and is replaced.
    static func upsertBlocks(
        _ chunks: [RawSampleChunk], of uuid: UUID, on connection: PostgresConnection, logger: Logger
    ) async throws {
        var start = 0
        while start < chunks.count {
            let firstSequence = chunks[start].sequence / chunksPerBlock * chunksPerBlock
            var end = start
            while end < chunks.count, chunks[end].sequence < firstSequence + chunksPerBlock {
                guard chunks[end].sequence == firstSequence + (end - start) else {
                    throw BlockGap(uuid: uuid, sequence: firstSequence + (end - start))
                }
                end += 1
            }
            let block = chunks[start..<end]
            start = end
            var samples = ByteBuffer()
            samples.reserveCapacity(block.reduce(0) { $0 + $1.bytes.count })
            for chunk in block { samples.writeBytes(chunk.bytes) }
            let encodings = block.map { Int16($0.encoding) }
            let firsts = block.map(\.firstMicros)
            let counts = block.map { Int32($0.sampleCount) }
            let lengths = block.map { Int32($0.bytes.count) }
            try await connection.query(
                """
                INSERT INTO sample_blocks
                    (recording_uuid, first_sequence, encodings, first_micros, sample_counts, byte_counts, samples)
                VALUES (\(uuid), \(Int32(firstSequence)), \(encodings)::smallint[], \(firsts)::bigint[],
                        \(counts)::integer[], \(lengths)::integer[], \(samples))
                ON CONFLICT (recording_uuid, first_sequence) DO UPDATE SET
                    encodings = EXCLUDED.encodings, first_micros = EXCLUDED.first_micros,
                    sample_counts = EXCLUDED.sample_counts, byte_counts = EXCLUDED.byte_counts,
                    samples = EXCLUDED.samples
                WHERE (sample_blocks.encodings, sample_blocks.first_micros, sample_blocks.sample_counts,
                       sample_blocks.byte_counts, sample_blocks.samples)
                      IS DISTINCT FROM (EXCLUDED.encodings, EXCLUDED.first_micros, EXCLUDED.sample_counts,
                                        EXCLUDED.byte_counts, EXCLUDED.samples)
                """, logger: logger)
        }
    }
}
