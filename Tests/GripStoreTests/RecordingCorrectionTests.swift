import Foundation
import GRDB
import GripAnalysis
import Testing

@testable import GripStore

/// A sensor's correction kept with each recording (v10, docs/calibration.md), so its raw readings stay known.
@Suite("Recording correction")
struct RecordingCorrectionTests {
    @Test("a recording begun with a correction keeps it in every read; one without has none", arguments: StoreKind.allCases)
    func draftKeepsTheCorrection(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        var draft = Fixtures.draft()
        draft.correction = ForceCorrection(scale: 1.0257, offsetKilograms: -0.154)
        let id = try fixture.store.beginRecording(draft, admission: Fixtures.admitAll)
        let plain = try fixture.store.beginRecording(Fixtures.draft(minutes: 1), admission: Fixtures.admitAll)
        #expect(try fixture.store.recording(id)?.correction == draft.correction)
        #expect(try fixture.store.recording(plain)?.correction == nil)
        let listed = try fixture.store.listRecordings(limit: nil).visible
        #expect(listed.first { $0.id == id }?.correction == draft.correction)
        #expect(listed.first { $0.id == plain }?.correction == nil)
    }

    @Test("v10 keeps a v9 database's recordings, with no correction; the columns refuse a scale of 0 or half a pair")
    func v10KeepsEveryRecording() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("griptrack-v10-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("griptrack.db").path
        let old = try DatabaseQueue(path: path)
        try Migrations.migrator.migrate(old, upTo: "v9 protocol on recordings")
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO recording (uuid, startedAt, device, profile, state, sampleCount, maxKilograms)
                    VALUES ('6a1f0c9e-0000-4000-8000-000000000001', '2026-03-01 09:00:00.000', 'F4',
                            'Tindeq Progressor', 'complete', 0, 34.75)
                    """)
        }
        try old.close()
        let store = try RecordingStore(path: path)
        let row = try #require(try store.recording(RecordingID(rawValue: 1)))
        #expect(row.correction == nil)
        #expect(row.maxKilograms == 34.75)
        #expect(throws: (any Error).self) {
            try store.writer.write { db in
                try db.execute(sql: "UPDATE recording SET correctionScale = 0, correctionOffsetKilograms = 0 WHERE id = 1")
            }
        }
        #expect(throws: (any Error).self) {
            try store.writer.write { db in try db.execute(sql: "UPDATE recording SET correctionScale = 1.1 WHERE id = 1") }
        }
    }
}
