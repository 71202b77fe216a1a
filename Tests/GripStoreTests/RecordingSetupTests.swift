import Foundation
import GRDB
import GripAnalysis
import Testing

@testable import GripStore

/// Who pulled and how (v8): athlete, grip, edge depth and body weight beside hand and label, kept across the
/// migration, editable, and filterable.
@Suite("Recording setup: athlete, grip, edge, body weight")
struct RecordingSetupTests {
    @Test("a v7 database keeps every recording, effort and chunk through v8, ids and all, and then takes \"both\"")
    func v8KeepsEveryRecording() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("griptrack-v8-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("griptrack.db").path
        let old = try DatabaseQueue(path: path)
        try Migrations.migrator.migrate(old, upTo: "v7 imported content digest")
        // Three recordings, the newest deleted: ids must not be reused after the rebuild.
        let samples = Fixtures.samples(count: 200)
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO recording (uuid, startedAt, device, profile, hand, label, state, sampleCount,
                                           maxKilograms, averageKilograms)
                    VALUES
                        ('6a1f0c9e-0000-4000-8000-000000000001', '2026-03-01 09:00:00.000', 'F4', 'Tindeq Progressor',
                         'left', 'warm-up', 'complete', 200, 34.75, 30.5),
                        ('6a1f0c9e-0000-4000-8000-000000000002', '2026-03-01 10:00:00.000', 'F4', 'Tindeq Progressor',
                         NULL, NULL, 'recovered', 0, NULL, NULL),
                        ('6a1f0c9e-0000-4000-8000-000000000003', '2026-03-01 11:00:00.000', 'F4', 'Tindeq Progressor',
                         'right', NULL, 'complete', 0, NULL, NULL);
                    DELETE FROM recording WHERE id = 3;
                    -- As `griptrack doctor --repair` left it before v8.
                    CREATE TABLE quarantinedRecording AS
                        SELECT *, '' AS quarantineReason, '' AS quarantinedAt FROM recording WHERE 0;
                    INSERT INTO effort (recordingId, effortIndex, startMicros, endMicros, peakKilograms, meanKilograms,
                                        durationMicros, timeToPeakMicros, rfdKilogramsPerSecond, impulseKilogramSeconds,
                                        baselineKilograms, isOpen)
                    VALUES (1, 0, 1250000, 4250000, 34.75, 27.5, 3000000, 812500, 61.25, 82.5, 0.25, 0);
                    """)
            _ = try RecordingStore.insertChunks(samples, of: RecordingID(rawValue: 1), firstSequence: 0, maxSpanMicros: nil, db)
        }
        let recordingsSQL = """
            SELECT id, uuid, startedAt, endedAt, device, profile, hand, label, state, owner, lastCommitAt, sampleCount,
                   maxKilograms, averageKilograms FROM recording ORDER BY id
            """
        let before = try old.read { db in try Row.fetchAll(db, sql: recordingsSQL) }
        try old.close()

        let store = try RecordingStore(path: path)
        let after = try store.writer.read { db in try Row.fetchAll(db, sql: recordingsSQL) }
        #expect(after == before)
        #expect(try store.efforts(of: RecordingID(rawValue: 1)) == [Fixtures.effort])
        #expect(try store.samples(of: RecordingID(rawValue: 1)) == samples)
        #expect(try store.checkIntegrity() == ["ok"])
        let foreignKeyProblems = try store.writer.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }
        #expect(foreignKeyProblems.isEmpty)
        let row = try #require(try store.recording(RecordingID(rawValue: 1)))
        #expect(row.hand == .left && row.label == "warm-up" && row.setup == RecordingSetup())
        // The deleted recording's id stays used; "both" is a hand now; deleting still takes efforts and chunks.
        let next = try store.beginRecording(
            RecordingDraft(startedAt: Fixtures.date(minutes: 180), device: "F4", profile: "Tindeq Progressor", hand: .both),
            admission: Fixtures.admitAll)
        #expect(next.rawValue == 4)
        #expect(try store.recording(next)?.hand == .both)
        // A quarantine table from before v8 still takes a damaged row after it.
        #expect(try store.quarantine([DamagedRecording(id: 2, reason: "test")]) == [2])
        try store.delete(RecordingID(rawValue: 1))
        let orphans = try store.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM effort) + (SELECT COUNT(*) FROM sampleChunk)")
        }
        #expect(orphans == 0)
    }

    @Test("record with a setup, then label changes only what it names; an empty text clears", arguments: StoreKind.allCases)
    func describeChangesWhatItNames(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        var draft = Fixtures.draft(label: "test")
        draft.setup = RecordingSetup(athlete: "Ana", grip: "half crimp", edgeMillimetres: 20, bodyWeightKilograms: 61.5)
        let id = try fixture.store.beginRecording(draft, admission: Fixtures.admitAll)
        #expect(try fixture.store.recording(id)?.setup == draft.setup)

        let changed = try fixture.store.describeRecording(
            id, RecordingDescription(hand: .right, grip: "", edgeMillimetres: 15, bodyWeightKilograms: 62))
        #expect(changed.hand == .right && changed.label == "test")
        #expect(changed.setup == RecordingSetup(athlete: "Ana", grip: nil, edgeMillimetres: 15, bodyWeightKilograms: 62))
        #expect(try fixture.store.recording(id) == changed)
        #expect(try fixture.store.listRecordings(limit: nil).visible == [changed])
        #expect(throws: GripStoreError.recordingNotFound(RecordingID(rawValue: 99))) {
            try fixture.store.describeRecording(RecordingID(rawValue: 99), RecordingDescription(label: "x"))
        }
    }

    @Test("list filters by athlete (any case), hand and grip; the hidden count counts matches only")
    func listFilters() throws {
        let fixture = try StoreFixture(.memory)
        let sessions: [(String, Hand, String)] = [
            ("Ana", .left, "half crimp"), ("Ana", .right, "half crimp"), ("Ben", .left, "open"), ("ana", .left, "open"),
        ]
        for (minutes, (athlete, hand, grip)) in sessions.enumerated() {
            var draft = Fixtures.draft(minutes: minutes)
            draft.hand = hand
            draft.setup = RecordingSetup(athlete: athlete, grip: grip)
            _ = try fixture.store.beginRecording(draft, admission: Fixtures.admitAll)
        }
        let anaLeft = try fixture.store.listRecordings(limit: nil, filter: RecordingFilter(athlete: "ANA", hand: .left))
        #expect(anaLeft.visible.map(\.id.rawValue) == [4, 1])
        #expect(anaLeft.hiddenCount == 0)
        let crimp = try fixture.store.listRecordings(limit: 1, filter: RecordingFilter(grip: "Half Crimp"))
        #expect(crimp.visible.map(\.id.rawValue) == [2] && crimp.hiddenCount == 1)
        // The same rule for rows that come from a daemon's LIST.
        let all = try fixture.store.listRecordings(limit: nil).visible
        #expect(all.filter(RecordingFilter(athlete: "ANA", hand: .left).matches).map(\.id.rawValue) == [4, 1])
    }

    @Test("a description names the field that is wrong", arguments: [
        (RecordingDescription(edgeMillimetres: 0.5), "edge depth 0.5 mm is outside 1–100 mm"),
        (RecordingDescription(bodyWeightKilograms: 400), "body weight 400.0 kg is outside 15–250 kg"),
        (RecordingDescription(athlete: "a\nb"), "athlete has a control character (U+000A) at character 2; a label is one line of text"),
    ])
    func descriptionProblems(_ description: RecordingDescription, problem: String) {
        #expect(description.problem == problem)
    }
}
