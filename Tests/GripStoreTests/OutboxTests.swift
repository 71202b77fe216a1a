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

    /// Every chunk sequence the outbox's `chunks` rows after row `after` name.
    private static func listedSequences(_ store: RecordingStore, after: Int64 = 0) throws -> Set<Int> {
        Set(
            try store.pendingOutbox(limit: 10_000).filter { $0.kind == .chunks && $0.id > after }
                .flatMap { $0.sequences.map(Array.init) ?? [] })
    }

    /// The chunk sequences the recording has.
    private static func storedSequences(_ store: RecordingStore, _ id: RecordingID) throws -> Set<Int> {
        Set(try store.writer.read { db in
            try Int.fetchAll(
                db, sql: "SELECT sequence FROM sampleChunk WHERE recordingId = ?", arguments: [id.rawValue])
        })
    }

    /// A recording begun on `store` and its chunk writer, created at `start`.
    private static func liveRecording(
        _ store: RecordingStore, start: ContinuousClock.Instant
    ) throws -> (RecordingID, ChunkWriter) {
        let id = try store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll)
        return (id, ChunkWriter(store: store, recording: id, now: start))
    }

    private static func finish(_ writer: ChunkWriter) throws {
        try writer.finish(
            summary: RecordingSummaryValues(endedAt: Fixtures.date(minutes: 1), maxKilograms: 35, averageKilograms: 20),
            efforts: [])
    }

    @Test("a live recording lists its chunks every 10 s, not in every commit, and finishing lists the rest")
    func liveChunksListedOnCadence() throws {
        let fixture = try StoreFixture(.file)
        let store = fixture.store
        let start = ContinuousClock.now
        let (id, writer) = try Self.liveRecording(store, start: start)
        // 25 s at 80 Hz, fed as the recorder does: one 40 ms batch after another, host time advancing with the device.
        let samples = Fixtures.samples(count: 2_000)
        for batch in stride(from: 0, to: samples.count, by: 4) {
            let now = start + .microseconds(samples[batch].micros - samples[0].micros)
            try writer.append(samples[batch..<batch + 4], now: now)
        }
        let commits = try Self.storedSequences(store, id).count
        #expect(commits >= 45)  // a chunk each half second of device time (0.55 s: 40 ms batches)
        let beforeFinish = try store.pendingOutbox(limit: 1_000).filter { $0.kind == .chunks }
        #expect(beforeFinish.count == 2)  // at 10 s and 20 s
        #expect(beforeFinish.first?.sequences?.lowerBound == 0)
        #expect(try Self.listedSequences(store).count < commits)

        try Self.finish(writer)
        #expect(try Self.listedSequences(store) == Self.storedSequences(store, id))
        // The finish lists them before the row that tells the server the recording is complete.
        let rows = try store.pendingOutbox(limit: 1_000)
        #expect(rows.suffix(2).map(\.kind) == [.chunks, .recording])
    }

    @Test("chunks a trim lets later commits reuse are listed too")
    func chunksAfterTrimListed() throws {
        let fixture = try StoreFixture(.memory)
        let store = fixture.store
        let start = ContinuousClock.now
        let (id, writer) = try Self.liveRecording(store, start: start)
        let samples = Fixtures.samples(count: 400)
        // Commits at 1, 2, 10, 11 and 11.5 s: the third lists chunks 0...2, the last two stay unlisted.
        for (index, second) in zip(stride(from: 0, to: 200, by: 40), [1.0, 2, 10, 11, 11.5]) {
            try writer.append(samples[index..<index + 40], now: start + .seconds(second))
            try writer.flush(now: start + .seconds(second))
        }
        #expect(try Self.listedSequences(store) == [0, 1, 2])
        let beforeTrim = try #require(try store.pendingOutbox(limit: 100).last?.id)
        try writer.trim(after: samples[59].micros)  // keeps chunk 0 and half of chunk 1
        for index in stride(from: 200, to: 400, by: 40) {
            try writer.append(samples[index..<index + 40], now: start + .seconds(12))
            try writer.flush(now: start + .seconds(12))
        }
        try Self.finish(writer)
        // Chunk 1 was cut, 2...6 are new (2 was listed before with other samples): the server needs all six again.
        #expect(try Self.storedSequences(store, id) == Set(0...6))
        #expect(try Self.listedSequences(store, after: beforeTrim) == Set(1...6))
    }

    @Test("a recovered recording lists every chunk its writer had not", arguments: StoreKind.allCases)
    func recoveryListsChunks(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let id = try store.beginRecording(Fixtures.draft(), owner: Fixtures.deadOwner, admission: Fixtures.admitAll)
        let writer = ChunkWriter(store: store, recording: id)
        let samples = Fixtures.samples(count: 200)
        for index in stride(from: 0, to: 200, by: 40) {
            try writer.append(samples[index..<index + 40])
            try writer.flush()
        }
        #expect(try Self.listedSequences(store).isEmpty)  // under 10 s: nothing listed yet
        switch kind {
        case .memory: _ = try store.recoverAbandonedRecordings()
        case .file: _ = try RecordingStore(path: fixture.path)
        }
        #expect(try Self.listedSequences(store) == Set(0...4))
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
