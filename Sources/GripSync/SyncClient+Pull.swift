import Foundation
import GripStore
import PostgresNIO

/// One recording of the account read back from the sync database: what `griptrack show --everywhere` and
/// `export --everywhere` print for a recording made on another device.
package struct RemoteRecordingDetail: Sendable {
    /// The recording's row, with the device that recorded it.
    package var recording: RemoteRecording
    /// Its efforts, in order.
    package var efforts: [StoredEffort]
    /// Every sample, decoded from the server's chunks.
    package var samples: [StoredSample]
}

/// Some of the account's recordings, and how many it has.
package struct RemotePage: Sendable {
    /// Newest first.
    package var recordings: [RemoteRecording]
    /// The account's recordings on the server, shown or not.
    package var total: Int
    /// Those not in ``recordings``.
    package var hidden: Int { max(0, total - recordings.count) }
}

/// The answer to "which recording does this UUID prefix name?".
package enum RemoteLookup: Sendable {
    case found(RemoteRecordingDetail)
    case notFound
    /// Several of the account's recordings start with the prefix (at most five are listed).
    case ambiguous([RemoteRecording])
}

extension SyncClient {
    /// The account's recordings on the server, from every device, newest first.
    ///
    /// - Parameter limit: How many; `nil` for all.
    /// - Returns: The rows, each naming the device that recorded it.
    /// - Throws: ``SyncError``.
    package func recordingsEverywhere(limit: Int? = nil) async throws(SyncError) -> [RemoteRecording] {
        try await withConnection { connection throws(SyncError) in
            try await wait(.read("list the account's recordings"), on: connection, within: settings.timeouts.read) {
                connection in
                try await fetchRecordings(on: connection, uuidPrefix: nil, limit: limit)
            }
        }
    }

    /// The account's newest recordings and how many it has in all (`list --everywhere` says what it leaves out).
    ///
    /// - Parameter limit: How many; `nil` for all.
    /// - Returns: The rows, newest first, and the account's total.
    /// - Throws: ``SyncError``.
    package func recordingPageEverywhere(limit: Int?) async throws(SyncError) -> RemotePage {
        let account = settings.account
        return try await withConnection { connection throws(SyncError) in
            try await wait(.read("list the account's recordings"), on: connection, within: settings.timeouts.read) {
                connection in
                let rows = try await fetchRecordings(on: connection, uuidPrefix: nil, limit: limit)
                var total = rows.count
                for try await count in try await connection.query(
                    "SELECT count(*) FROM recordings WHERE account = \(account)", logger: logger
                ).checked(columns: 1).decode(Int64.self) {
                    total = max(rows.count, Int(count))
                }
                return RemotePage(recordings: rows, total: total)
            }
        }
    }

    /// The account's recordings, newest first: all of them, or those whose UUID starts with `uuidPrefix`
    /// (lower-case hex digits and dashes only, so it holds no LIKE wildcard).
    func fetchRecordings(
        on connection: PostgresConnection, uuidPrefix: String?, limit: Int?
    ) async throws(SyncError) -> [RemoteRecording] {
        let rowLimit = Int64(limit.map { max(0, $0) } ?? Int(Int32.max))
        let account = settings.account
        do {
            let rows: PostgresRowSequence = try await connection.query(
                """
                SELECT uuid, device_name, started_at, ended_at, device, profile, hand, label, state,
                       sample_count, effort_count, max_kg, average_kg,
                       athlete, grip, edge_mm, body_weight_kg, protocol_notation, protocol_max_kg
                FROM recordings
                WHERE account = \(account) AND (\(uuidPrefix)::text IS NULL OR uuid::text LIKE \(uuidPrefix) || '%')
                ORDER BY started_at DESC, uuid LIMIT \(rowLimit)
                """, logger: logger)
            var result: [RemoteRecording] = []
            for try await row in rows.checked(columns: 19).decode(
                (UUID, String, Date, Date?, String, String, String?, String?, String, Int64, Int32, Double?, Double?,
                 String?, String?, Double?, Double?, String?, Double?).self
            ) {
                result.append(
                    RemoteRecording(
                        uuid: row.0, deviceName: row.1, startedAt: row.2, endedAt: row.3, device: row.4,
                        profile: row.5, hand: row.6, label: row.7, state: row.8, sampleCount: Int(row.9),
                        effortCount: Int(row.10), maxKilograms: row.11, averageKilograms: row.12,
                        setup: RecordingSetup(
                            athlete: row.13, grip: row.14, edgeMillimetres: row.15, bodyWeightKilograms: row.16,
                            protocolNotation: row.17, protocolMaxKilograms: row.18)))
            }
            return result
        } catch {
            throw SyncError(error, operation: "list the account's recordings")
        }
    }

    /// Every recording of the account with its efforts, oldest first: what `stats` and `trends --everywhere` need
    /// (no samples).
    ///
    /// - Returns: The recordings, each with its efforts in order.
    /// - Throws: ``SyncError``.
    package func historyEverywhere() async throws(SyncError) -> [(recording: RemoteRecording, efforts: [StoredEffort])] {
        let account = settings.account
        return try await withConnection { connection throws(SyncError) in
            try await wait(.read("read the account's history"), on: connection, within: settings.timeouts.read) {
                connection in
                try await history(on: connection, account: account)
            }
        }
    }

    /// Every recording of the account with its efforts and, for those with efforts, its samples, oldest first:
    /// what `trends --everywhere` computes the figures per athlete × hand × grip × protocol from, as `show` does.
    ///
    /// - Returns: The recordings, each with its efforts in order and its samples (empty without efforts).
    /// - Throws: ``SyncError``; a chunk that does not decode is ``SyncError/server(operation:detail:)`` naming it.
    package func detailedHistoryEverywhere() async throws(SyncError) -> [RemoteRecordingDetail] {
        let account = settings.account
        return try await withConnection { connection throws(SyncError) in
            try await wait(.read("read the account's history"), on: connection, within: settings.timeouts.read) {
                connection in
                let history = try await history(on: connection, account: account)
                // One query for every chunk the figures need, streamed in recording and sequence order.
                var samples: [UUID: [StoredSample]] = [:]
                do {
                    let rows: PostgresRowSequence = try await connection.query(
                        """
                        SELECT c.recording_uuid, c.sequence, c.encoding, c.first_micros, c.sample_count, c.samples
                        FROM sample_chunks c JOIN recordings r ON r.uuid = c.recording_uuid
                        WHERE r.account = \(account) AND r.effort_count > 0
                        ORDER BY c.recording_uuid, c.sequence
                        """, logger: logger)
                    for try await (uuid, sequence, encoding, first, count, bytes) in rows.checked(columns: 6).decode(
                        (UUID, Int32, Int16, Int64, Int32, ByteBuffer).self)
                    {
                        samples[uuid, default: []] += try Self.decodeChunk(
                            uuid: uuid, sequence: sequence, encoding: encoding, first: first, count: count, bytes: bytes)
                    }
                } catch let error as SyncError {
                    throw error
                } catch {
                    throw SyncError(error, operation: "read the account's samples")
                }
                return history.map {
                    RemoteRecordingDetail(recording: $0.recording, efforts: $0.efforts, samples: samples[$0.recording.uuid] ?? [])
                }
            }
        }
    }

    /// One server chunk's samples; a chunk that does not decode is a server error naming the recording and chunk.
    private static func decodeChunk(
        uuid: UUID, sequence: Int32, encoding: Int16, first: Int64, count: Int32, bytes: ByteBuffer
    ) throws(SyncError) -> [StoredSample] {
        let chunk = RawSampleChunk(
            sequence: Int(sequence), encoding: Int(encoding), firstMicros: first, sampleCount: Int(count),
            bytes: Data(bytes.readableBytesView))
        switch chunk.samples() {
        case .success(let decoded): return decoded
        case .failure(let damage):
            throw SyncError.server(
                operation: "read recording \(uuid)",
                detail: "sample chunk \(damage.sequence) does not decode: \(damage.detail)")
        }
    }

    private func history(
        on connection: PostgresConnection, account: String
    ) async throws(SyncError) -> [(recording: RemoteRecording, efforts: [StoredEffort])] {
        do {
            let recordings = try await fetchRecordings(on: connection, uuidPrefix: nil, limit: nil)
            var efforts: [UUID: [StoredEffort]] = [:]
            do {
                let rows: PostgresRowSequence = try await connection.query(
                    """
                    SELECT e.recording_uuid, \(unescaped: Self.effortColumns)
                    FROM efforts e JOIN recordings r ON r.uuid = e.recording_uuid
                    WHERE r.account = \(account)
                    ORDER BY e.recording_uuid, e.effort_index
                    """, logger: logger)
                for try await row in rows.checked(columns: 13).decode(
                    (UUID, Int32, Int64, Int64, Double, Double, Int64, Int64, Double?, Double, Double, Bool, Bool).self
                ) {
                    efforts[row.0, default: []].append(
                        Self.effort((row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8, row.9, row.10, row.11, row.12)))
                }
            } catch {
                throw SyncError(error, operation: "read the account's efforts")
            }
            return recordings.reversed().map { ($0, efforts[$0.uuid] ?? []) }
        }
    }

    /// The `efforts` columns (table alias `e`) in the order ``effort(_:)`` reads them.
    private static let effortColumns = """
        e.effort_index, e.start_micros, e.end_micros, e.peak_kg, e.mean_kg, e.duration_micros, e.time_to_peak_micros,
        e.rfd_kg_per_s, e.impulse_kg_s, e.baseline_kg, e.is_open_start, e.is_open
        """
    private typealias EffortRow = (Int32, Int64, Int64, Double, Double, Int64, Int64, Double?, Double, Double, Bool, Bool)

    private static func effort(_ row: EffortRow) -> StoredEffort {
        StoredEffort(
            index: Int(row.0), startMicros: row.1, endMicros: row.2, peakKilograms: row.3, meanKilograms: row.4,
            durationMicros: row.5, timeToPeakMicros: row.6, rfdKilogramsPerSecond: row.7,
            impulseKilogramSeconds: row.8, baselineKilograms: row.9, isOpenStart: row.10, isOpen: row.11)
    }

    /// Reads one of the account's recordings with its efforts and samples.
    ///
    /// - Parameter prefix: The recording's UUID or its start, as `list --everywhere` shows it (case-insensitive).
    /// - Returns: The recording; ``RemoteLookup/notFound`` when the account has none with that prefix (another
    ///   account's are never matched); ``RemoteLookup/ambiguous(_:)`` when several match.
    /// - Throws: ``SyncError``; a chunk that does not decode is ``SyncError/server(operation:detail:)`` naming it.
    package func recordingEverywhere(matching prefix: String) async throws(SyncError) -> RemoteLookup {
        let prefix = prefix.lowercased()
        guard !prefix.isEmpty, prefix.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || $0 == 0x2D })
        else { return .notFound }
        let account = settings.account
        return try await withConnection { connection throws(SyncError) in
            try await wait(.read("read recording \(prefix)"), on: connection, within: settings.timeouts.read) {
                connection in
                try await lookUp(prefix, account: account, on: connection)
            }
        }
    }

    func lookUp(
        _ prefix: String, account: String, on connection: PostgresConnection
    ) async throws(SyncError) -> RemoteLookup {
        do {
            let matches = try await fetchRecordings(on: connection, uuidPrefix: prefix, limit: 5)
            guard matches.count == 1, let recording = matches.first else {
                return matches.isEmpty ? .notFound : .ambiguous(matches)
            }
            let uuid = recording.uuid
            do {
                var efforts: [StoredEffort] = []
                let effortRows: PostgresRowSequence = try await connection.query(
                    """
                    SELECT \(unescaped: Self.effortColumns)
                    FROM efforts e JOIN recordings r ON r.uuid = e.recording_uuid
                    WHERE r.uuid = \(uuid) AND r.account = \(account)
                    ORDER BY e.effort_index
                    """, logger: logger)
                for try await row in effortRows.checked(columns: 12).decode(EffortRow.self) {
                    efforts.append(Self.effort(row))
                }
                var samples: [StoredSample] = []
                samples.reserveCapacity(recording.sampleCount)
                let chunkRows: PostgresRowSequence = try await connection.query(
                    """
                    SELECT c.sequence, c.encoding, c.first_micros, c.sample_count, c.samples
                    FROM sample_chunks c JOIN recordings r ON r.uuid = c.recording_uuid
                    WHERE r.uuid = \(uuid) AND r.account = \(account)
                    ORDER BY c.sequence
                    """, logger: logger)
                for try await (sequence, encoding, first, count, bytes) in chunkRows.checked(columns: 5).decode(
                    (Int32, Int16, Int64, Int32, ByteBuffer).self)
                {
                    samples += try Self.decodeChunk(
                        uuid: uuid, sequence: sequence, encoding: encoding, first: first, count: count, bytes: bytes)
                }
                return .found(RemoteRecordingDetail(recording: recording, efforts: efforts, samples: samples))
            } catch let error as SyncError {
                throw error
            } catch {
                throw SyncError(error, operation: "read recording \(uuid)")
            }
        }
    }
}
