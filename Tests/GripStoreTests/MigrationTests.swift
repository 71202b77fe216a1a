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
                "sqlite_sequence", "syncOutbox", "syncStatus",
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
