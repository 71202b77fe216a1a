import Foundation
import GRDB

/// What `griptrack doctor` finds in a database.
public struct StoreHealth: Sendable, Equatable {
    /// `PRAGMA integrity_check`'s lines: `["ok"]` for a sound file.
    public var integrity: [String]
    /// Recordings that cannot be read whole (the row, one of its efforts, or one of its sample chunks), with why.
    public var damaged: [DamagedRecording]
    /// Recordings set aside earlier (in the quarantine tables).
    public var quarantined: Int

    /// Whether SQLite's own check passed and every recording reads.
    public var isHealthy: Bool { integrity == ["ok"] && damaged.isEmpty }
}

extension RecordingStore {
    /// Checks the file (`PRAGMA integrity_check`) and reads every recording, effort and sample chunk as the
    /// commands do, collecting what does not decode instead of stopping at it.
    ///
    /// - Returns: The findings; nothing is changed.
    /// - Throws: An SQLite error (the file cannot be read at all).
    public func checkHealth() throws(GripStoreError) -> StoreHealth {
        try read("check the database") { db in
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            var damaged: [DamagedRecording] = []
            var damagedIDs = Set<Int64>()
            func note(_ damage: DamagedRecording) {
                if let id = damage.id, !damagedIDs.insert(id).inserted { return }
                damaged.append(damage)
            }
            let rows = try Row.fetchCursor(db, sql: Self.recordingRowSelect + " ORDER BY id")
            while let row = try rows.next() {
                if case .failure(let damage) = Self.recordingRow(row) { note(damage) }
            }
            let efforts = try Row.fetchCursor(db, sql: "SELECT * FROM effort ORDER BY recordingId, effortIndex")
            while let row = try efforts.next() {
                do {
                    _ = try EffortRecord(row: row)
                } catch {
                    note(DamagedRecording(id: try? row.decode(Int64.self, forColumn: "recordingId"), reason: "an effort does not decode: \(error)"))
                }
            }
            let chunks = try Row.fetchCursor(db, sql: "SELECT * FROM sampleChunk ORDER BY recordingId, sequence")
            while let row = try chunks.next() {
                let owner = try? row.decode(Int64.self, forColumn: "recordingId")
                guard let chunk = try? SampleChunkRecord(row: row) else {
                    note(DamagedRecording(id: owner, reason: "a sample chunk row does not decode"))
                    continue
                }
                do throws(GripStoreError) {
                    _ = try Self.decode([chunk], of: RecordingID(rawValue: chunk.recordingId))
                } catch {
                    note(DamagedRecording(id: chunk.recordingId, reason: "sample chunk \(chunk.sequence) is damaged: \(error)"))
                }
            }
            let quarantined = try db.tableExists("quarantinedRecording")
                ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM quarantinedRecording") ?? 0 : 0
            return StoreHealth(integrity: integrity, damaged: damaged, quarantined: quarantined)
        }
    }

    /// Sets damaged recordings aside without deleting anything: each row, its efforts and its sample chunks move, as
    /// stored, to `quarantinedRecording`, `quarantinedEffort` and `quarantinedSampleChunk` (created on first use, with
    /// the reason and the time), in one transaction. Every reader then sees only sound recordings; the quarantined
    /// bytes stay in the file for a person (or a later griptrack) to recover.
    ///
    /// - Parameter damaged: From ``checkHealth()``; entries without an id cannot be moved and are skipped.
    /// - Returns: The recordings moved.
    /// - Throws: An SQLite error; nothing is moved then.
    @discardableResult
    public func quarantine(_ damaged: [DamagedRecording], now: Date = Date()) throws(GripStoreError) -> [Int64] {
        try writeImmediate("quarantine damaged recordings") { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS quarantinedRecording AS
                    SELECT *, '' AS quarantineReason, '' AS quarantinedAt FROM recording WHERE 0;
                CREATE TABLE IF NOT EXISTS quarantinedEffort AS SELECT * FROM effort WHERE 0;
                CREATE TABLE IF NOT EXISTS quarantinedSampleChunk AS SELECT * FROM sampleChunk WHERE 0;
                """)
            var moved: [Int64] = []
            for damage in damaged {
                guard let id = damage.id else { continue }
                let arguments: StatementArguments = [id]
                try db.execute(sql: "INSERT INTO quarantinedEffort SELECT * FROM effort WHERE recordingId = ?", arguments: arguments)
                try db.execute(
                    sql: "INSERT INTO quarantinedSampleChunk SELECT * FROM sampleChunk WHERE recordingId = ?", arguments: arguments)
                // By name: a table quarantined into before v8 got v8's columns at its end (after the reason).
                let columns = try db.columns(in: "recording").map { "\"\($0.name)\"" }.joined(separator: ", ")
                try db.execute(
                    sql: """
                        INSERT INTO quarantinedRecording (\(columns), quarantineReason, quarantinedAt)
                            SELECT \(columns), ?, ? FROM recording WHERE id = ?
                        """,
                    arguments: [damage.reason, ISO8601DateFormatter().string(from: now), id])
                // Efforts and chunks go with the row (ON DELETE CASCADE), their copies stay.
                try db.execute(sql: "DELETE FROM recording WHERE id = ?", arguments: arguments)
                if db.changesCount > 0 { moved.append(id) }
            }
            return moved
        }
    }
}
