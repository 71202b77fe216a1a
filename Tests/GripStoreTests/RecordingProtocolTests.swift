import Foundation
import GRDB
import GripAnalysis
import Testing

@testable import GripStore

/// The protocol a recording ran (v9): kept with the recording so `show` and `trends` need no `--protocol` again.
@Suite("Recording protocol (v9)")
struct RecordingProtocolTests {
    @Test("a v8 database keeps every recording and its setup through v9; the protocol starts absent and then sticks")
    func v9KeepsEveryRecording() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("griptrack-v9-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("griptrack.db").path
        let old = try DatabaseQueue(path: path)
        try Migrations.migrator.migrate(old, upTo: "v8 athlete, grip, edge and body weight on recordings")
        let samples = Fixtures.samples(count: 120)
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO recording (uuid, startedAt, device, profile, hand, label, state, sampleCount,
                                           maxKilograms, averageKilograms, athlete, grip, edgeMillimetres,
                                           bodyWeightKilograms)
                    VALUES
                        ('6a1f0c9e-0000-4000-8000-000000000011', '2026-03-01 09:00:00.000', 'F4', 'Tindeq Progressor',
                         'both', 'test', 'complete', 120, 34.75, 30.5, 'Ana', 'half crimp', 20, 61.5),
                        ('6a1f0c9e-0000-4000-8000-000000000012', '2026-03-01 10:00:00.000', 'F4', 'Tindeq Progressor',
                         NULL, NULL, 'recovered', 0, NULL, NULL, NULL, NULL, NULL, NULL);
                    -- As `griptrack doctor --repair` left it under v8.
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
                   maxKilograms, averageKilograms, athlete, grip, edgeMillimetres, bodyWeightKilograms
            FROM recording ORDER BY id
            """
        let before = try old.read { db in try Row.fetchAll(db, sql: recordingsSQL) }
        try old.close()

        var upgrades: [[String]] = []
        let store = try RecordingStore(path: path) { upgrades.append($0) }
        #expect(upgrades == [["v9 protocol on recordings", "v10 a sensor's correction on recordings"]])
        #expect(try store.writer.read { db in try Row.fetchAll(db, sql: recordingsSQL) } == before)
        #expect(try store.efforts(of: RecordingID(rawValue: 1)) == [Fixtures.effort])
        #expect(try store.samples(of: RecordingID(rawValue: 1)) == samples)
        #expect(try store.checkIntegrity() == ["ok"])
        let first = try #require(try store.recording(RecordingID(rawValue: 1)))
        #expect(first.setup == RecordingSetup(athlete: "Ana", grip: "half crimp", edgeMillimetres: 20, bodyWeightKilograms: 61.5))

        let labelled = try store.describeRecording(
            first.id, RecordingDescription(protocolNotation: "repeaters 6x 7:3 @80%", protocolMaxKilograms: 27))
        #expect(labelled.setup.protocolNotation == "repeaters 6x 7:3 @80%")
        #expect(labelled.setup.protocolMaxKilograms == 27)
        #expect(labelled.setup.athlete == "Ana")
        #expect(try store.listRecordings(limit: nil).visible.first { $0.id == first.id } == labelled)
        // An empty notation clears the protocol; the max stays until it is given again.
        let cleared = try store.describeRecording(first.id, RecordingDescription(protocolNotation: ""))
        #expect(cleared.setup.protocolNotation == nil && cleared.setup.protocolMaxKilograms == 27)
        // The schema refuses a max of zero written by hand.
        #expect(throws: (any Error).self) {
            try store.writer.write { db in try db.execute(sql: "UPDATE recording SET protocolMaxKilograms = 0 WHERE id = 1") }
        }
        // A quarantine table from before v9 still takes a damaged row after it.
        #expect(try store.quarantine([DamagedRecording(id: 2, reason: "test")]) == [2])
    }

    @Test("a recording begun with a protocol keeps it", arguments: StoreKind.allCases)
    func draftKeepsTheProtocol(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        var draft = Fixtures.draft()
        draft.setup = RecordingSetup(protocolNotation: "cf 24x 7:3", protocolMaxKilograms: 40.5)
        let id = try fixture.store.beginRecording(draft, admission: Fixtures.admitAll)
        #expect(try fixture.store.recording(id)?.setup == draft.setup)
    }

    @Test("a description names a protocol that does not read, and a max out of range", arguments: [
        (RecordingDescription(protocolNotation: "repeaters 6x 7-3"),
         "protocol \"repeaters 6x 7-3\": column 14: \"7-3\": write work and rest with a colon, e.g. 7:3"),
        (RecordingDescription(protocolMaxKilograms: 0.5), "protocol max 0.5 kg is outside 1–500 kg"),
    ])
    func protocolProblems(_ description: RecordingDescription, _ problem: String) {
        #expect(description.problem == problem)
        #expect(RecordingDescription(protocolNotation: "").problem == nil)
    }
}
