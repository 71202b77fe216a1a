import Foundation
import GRDB
import Testing

@testable import GripStore

@Suite("Migrations")
struct MigrationTests {
    @Test("opening a new database creates every table and applies every migration", arguments: StoreKind.allCases)
    func schemaIsCreated(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let (tables, applied) = try fixture.store.writer.read { db in
            (
                try String.fetchAll(
                    db,
                    sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
                ),
                try Migrations.migrator.appliedMigrations(db)
            )
        }
        #expect(
            tables == [
                "appStoreRenewalInfo", "appStoreTransaction", "effort", "grdb_migrations", "importedFigures",
                "importedRep", "manualOverride",
                "proAudit", "processedNotification", "recording", "sampleChunk", "signedDateHighWater",
                "sqlite_sequence", "syncOutbox", "syncStatus", "webCredential",
            ].filter { $0 != "sqlite_sequence" })
        #expect(applied == Migrations.migrator.migrations)
        #expect(try fixture.store.checkIntegrity() == ["ok"])
    }

    @Test("a database file uses WAL, foreign keys and full fsync, on the writer and the readers")
    func filePragmas() throws {
        let fixture = try StoreFixture(.file)
        let pragmas = { (db: Database) in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try Int.fetchOne(db, sql: "PRAGMA foreign_keys"),
                try Int.fetchOne(db, sql: "PRAGMA synchronous")
            )
        }
        // The writer is the connection that commits, so it is the one whose fsyncs keep a commit through a power cut;
        // GRDB's WAL set-up lowers it to NORMAL unless the store raises it again.
        let writer = try fixture.store.writer.writeWithoutTransaction(pragmas)
        let reader = try fixture.store.writer.read(pragmas)
        for (journal, foreignKeys, synchronous) in [writer, reader] {
            #expect(journal == "wal")
            #expect(foreignKeys == 1)
            #expect(synchronous == 2)  // FULL
        }
    }

    @Test("reopening a migrated file keeps its data and applies nothing twice")
    func reopenKeepsData() throws {
        let fixture = try StoreFixture(.file)
        let id = try fixture.store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll)
        let reopened = try RecordingStore(path: fixture.path)
        #expect(try reopened.recording(id)?.device == "F4:12:FA:01:02:03")
    }

    @Test("a database from before v5 keeps every chunk, bit for bit, when its chunks move into a rowid table")
    func sampleChunksMoveIntoRowidTable() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("griptrack-migration-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("griptrack.db").path
        // A file as the release before v5 left it: v1–v4 applied, a recording with live chunks and one saved whole.
        let old = try DatabaseQueue(path: path)
        try Migrations.migrator.migrate(old, upTo: "v4 sync outbox")
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO recording (uuid, startedAt, device, profile, state, sampleCount)
                    VALUES
                        ('6a1f0c9e-0000-4000-8000-000000000001', '2026-03-01 09:00:00.000', 'F4', 'Tindeq Progressor',
                         'complete', 300),
                        ('6a1f0c9e-0000-4000-8000-000000000002', '2026-03-01 10:00:00.000', 'F4', 'Tindeq Progressor',
                         'complete', 100)
                    """)
        }
        let first = Fixtures.samples(count: 300)
        let second = Fixtures.samples(count: 100, startMicros: 5_000_000)
        try old.write { db in
            for (offset, start) in stride(from: 0, to: 300, by: 40).enumerated() {
                _ = try RecordingStore.insertChunks(
                    Array(first[start..<min(start + 40, 300)]), of: RecordingID(rawValue: 1), firstSequence: offset,
                    maxSpanMicros: nil, db)
            }
            _ = try RecordingStore.insertChunks(
                second, of: RecordingID(rawValue: 2), firstSequence: 0, maxSpanMicros: nil, db)
        }
        let chunksSQL = "SELECT * FROM sampleChunk ORDER BY recordingId, sequence"
        let schemaSQL = "SELECT sql FROM sqlite_master WHERE name = 'sampleChunk'"
        let before = try old.read { db in try Row.fetchAll(db, sql: chunksSQL) }
        #expect(try old.read { db in try String.fetchOne(db, sql: schemaSQL) }?.contains("WITHOUT ROWID") == true)
        try old.close()

        var upgrades: [[String]] = []
        let store = try RecordingStore(path: path) { upgrades.append($0) }
        #expect(upgrades == [[
            "v5 sample chunks in a rowid table", "v6 web credentials", "v7 imported content digest",
            "v8 athlete, grip, edge and body weight on recordings", "v9 protocol on recordings",
            "v10 a sensor's correction on recordings",
        ]])
        _ = try RecordingStore(path: path) { upgrades.append($0) }
        #expect(upgrades.count == 1)  // an up-to-date file is no upgrade
        let after = try store.writer.read { db in try Row.fetchAll(db, sql: chunksSQL) }
        #expect(after == before)
        #expect(after.count == 9)
        #expect(try store.samples(of: RecordingID(rawValue: 1)) == first)
        #expect(try store.samples(of: RecordingID(rawValue: 2)) == second)
        let schema = try store.writer.read { db in try String.fetchOne(db, sql: schemaSQL) }
        #expect(schema?.contains("WITHOUT ROWID") == false)
        #expect(try store.checkIntegrity() == ["ok"])
        // The key still holds: a second chunk 0 for recording 1 is refused; deleting a recording takes its chunks.
        #expect(throws: (any Error).self) {
            try store.writer.write { db in
                _ = try RecordingStore.insertChunks(
                    Array(first[..<1]), of: RecordingID(rawValue: 1), firstSequence: 0, maxSpanMicros: nil, db)
            }
        }
        try store.delete(RecordingID(rawValue: 1))
        #expect(try store.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sampleChunk") } == 1)
    }

    @Test("live half-second chunks at 80 Hz fit on their page: the file grows by under 0.5 KiB a chunk")
    func liveChunksNeedNoOverflowPage() throws {
        let fixture = try StoreFixture(.file)
        let id = try fixture.store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll)
        let pages = { try fixture.store.writer.read { db in try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 } }
        let before = try pages()
        let samples = Fixtures.samples(count: 8_000)  // 100 s at 80 Hz, committed in 0.5 s chunks as the recorder does
        for start in stride(from: 0, to: samples.count, by: 40) {
            try fixture.store.appendSamples(Array(samples[start..<start + 40]), to: id, listing: .later)
        }
        // 200 chunks of 40 samples (≈ 250 bytes each); with an overflow page each, the file grew by ≥ 200 KiB.
        let grown = try pages() - before
        #expect(grown * 1_024 < 200 * 512, "the file grew by \(grown) pages of 1 KiB for 200 chunks")
    }

    @Test("a database written by a newer griptrack is refused with what to do")
    func newerSchemaIsRefused() throws {
        let fixture = try StoreFixture(.file)
        try fixture.store.writer.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99 from the future')")
        }
        #expect(throws: GripStoreError.schemaFromNewerVersion(path: fixture.path)) {
            _ = try RecordingStore(path: fixture.path)
        }
        #expect(
            GripStoreError.schemaFromNewerVersion(path: "/x.db").description
                == "The database at /x.db was written by a newer griptrack. Upgrade griptrack, or use another file with --db."
        )
    }

    @Test("a database that cannot be created says where and what to do")
    func unopenableFile() throws {
        let error = #expect(throws: GripStoreError.self) {
            _ = try RecordingStore(path: "/proc/griptrack-cannot-exist/griptrack.db")
        }
        guard case .cannotOpen(let path, _, _) = error else {
            Issue.record("expected cannotOpen, got \(String(describing: error))")
            return
        }
        #expect(path == "/proc/griptrack-cannot-exist/griptrack.db")
        #expect(error?.description.hasPrefix("Could not open the database at /proc/griptrack-cannot-exist/griptrack.db") == true)
        #expect(error?.description.hasSuffix("or choose another file with --db.") == true)
    }
}
