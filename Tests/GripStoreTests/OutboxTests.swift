import Foundation
import GRDB
import Testing

@testable import GripStore

/// The sync outbox: every change writes its row in the change's own transaction (docs/sync.md).
@Suite("Sync outbox")
struct OutboxTests {
    @Test("each change appends its row: started, chunks, finished, described, deleted", arguments: StoreKind.allCases)
    func changesAppendRows(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let draft = Fixtures.draft()
        let id = try store.beginRecording(draft, admission: Fixtures.admitAll)
        try store.appendSamples(Fixtures.samples(count: 80), to: id)
        try store.finishRecording(
            id, summary: RecordingSummaryValues(endedAt: Fixtures.date(minutes: 1), maxKilograms: 30, averageKilograms: 30),
            efforts: [Fixtures.effort])
        try store.describeRecording(id, hand: .right, label: "max hang")
        try store.delete(id)
        let rows = try store.pendingOutbox(limit: 100)
        #expect(rows.map(\.kind) == [.recording, .chunks, .recording, .recording, .deleted])
        #expect(rows.allSatisfy { $0.recordingUUID == draft.uuid })
        #expect(rows[1].sequences == 0...0)
        #expect(rows.map(\.id) == rows.map(\.id).sorted())
        #expect(try store.syncStatus().pendingRows == 5)
    }

    @Test("a refused or failed change leaves no outbox row")
    func failedChangeLeavesNoRow() throws {
        let fixture = try StoreFixture(.file)
        let store = fixture.store
        #expect(throws: GripStoreError.self) {
            try store.beginRecording(Fixtures.draft(), admission: Fixtures.freePlan(limit: 0))
        }
        let id = try store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll)
        try store.finishRecording(
            id, summary: RecordingSummaryValues(endedAt: Fixtures.date(minutes: 1), maxKilograms: nil, averageKilograms: nil),
            efforts: [])
        #expect(throws: GripStoreError.self) { try store.appendSamples(Fixtures.samples(count: 10), to: id) }
        #expect(try store.pendingOutbox(limit: 100).map(\.kind) == [.recording, .recording])
    }

    @Test("the row and the change commit together: a failing outbox insert rolls the change back")
    func sameTransaction() throws {
        let fixture = try StoreFixture(.file)
        let store = fixture.store
        try store.writer.write { db in
            try db.execute(
                sql: "CREATE TRIGGER refuse BEFORE INSERT ON syncOutbox BEGIN SELECT RAISE(ABORT, 'outbox refused'); END")
        }
        #expect(throws: GripStoreError.self) { try store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll) }
        #expect(throws: GripStoreError.self) {
            try store.grantPro(note: nil, expires: nil, by: "test", now: Fixtures.reference)
        }
        #expect(try store.recordingCount() == 0)
        #expect(try store.manualOverride() == nil)
        try store.writer.write { db in try db.execute(sql: "DROP TRIGGER refuse") }
        _ = try store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll)
        #expect(try store.pendingOutbox(limit: 10).count == 1)
    }

    @Test("entitlement changes carry the resolver's answer after the change")
    func entitlementRows() throws {
        let fixture = try StoreFixture(.memory)
        let store = fixture.store
        try store.grantPro(note: "coach", expires: nil, by: "test", now: Fixtures.reference)
        try store.clearManualOverride(by: "test", at: Fixtures.date(minutes: 1))
        #expect(try store.clearManualOverride(by: "test", at: Fixtures.date(minutes: 2)) == false)
        let rows = try store.pendingOutbox(limit: 10)
        #expect(rows.map(\.kind) == [.entitlement, .entitlement])
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let changes = try rows.map { try decoder.decode(EntitlementChange.self, from: Data(($0.payload ?? "").utf8)) }
        #expect(changes.map(\.event) == ["override set", "override cleared"])
        #expect(changes.map(\.tier) == ["pro", "free"])
        #expect(changes[0].eventID != changes[1].eventID)
    }

    @Test("acknowledging removes rows up to the id, keeps later ones, and records the success")
    func acknowledge() throws {
        let fixture = try StoreFixture(.memory)
        let store = fixture.store
        for minute in 0..<3 { _ = try store.beginRecording(Fixtures.draft(minutes: minute), admission: Fixtures.admitAll) }
        let rows = try store.pendingOutbox(limit: 2)
        #expect(try store.acknowledgeOutbox(upTo: rows[1].id) == 2)
        #expect(try store.pendingOutbox(limit: 10).map(\.id) == [rows[1].id + 1])
        let status = try store.syncStatus()
        #expect(status.pendingRows == 1 && status.rowsSent == 2 && status.lastSuccessAt != nil)
        try store.recordSyncFailure("server down")
        #expect(try store.syncStatus().lastError == "server down")
    }

    @Test("migrating a database from before sync queues every stored recording with all its chunks")
    func migrationSeedsOutbox() throws {
        var migrator = Migrations.migrator
        let queue = try DatabaseQueue()
        try migrator.migrate(queue, upTo: "v3 efforts open at their start")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO recording (id, uuid, startedAt, device, profile, state, sampleCount)
                VALUES (1, 'aaaaaaaa-0000-0000-0000-000000000001', '2026-03-01 09:00:00.000', 'd', 'p', 'complete', 2),
                       (2, 'aaaaaaaa-0000-0000-0000-000000000002', '2026-03-01 10:00:00.000', 'd', 'p', 'complete', 0);
                INSERT INTO sampleChunk (recordingId, sequence, encoding, firstMicros, sampleCount, samples)
                VALUES (1, 0, 1, 0, 1, x'00'), (1, 1, 1, 0, 1, x'00');
                """)
        }
        migrator = Migrations.migrator
        try migrator.migrate(queue)
        let rows = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT kind, firstSequence, lastSequence FROM syncOutbox ORDER BY id")
        }
        #expect(rows.map { $0["kind"] as String } == ["chunks", "recording"])
        #expect(rows[0]["lastSequence"] as Int? == 1)
    }
}
