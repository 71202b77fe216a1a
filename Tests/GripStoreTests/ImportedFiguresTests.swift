import Foundation
import GRDB
import GripAnalysis
import GripEntitlements
import Testing

@testable import GripStore

/// An imported test keeps the app's figures beside griptrack's analysis, in the same transaction as the quota.
@Suite("imported figures")
struct ImportedFiguresTests {
    static let samples = (0..<200).map { StoredSample(micros: Int64($0) * 12_500, kilograms: $0 > 50 && $0 < 150 ? 30 : 0.2) }

    static let recording = Recording(
        startMicros: 0, endMicros: 199 * 12_500,
        efforts: [
            Effort(
                startMicros: 637_500, endMicros: 1_862_500, durationMicros: 1_225_000, peakKg: 30, peakMicros: 650_000,
                meanKg: 29.5, timeToPeakMicros: 12_500, rfdKgPerSecond: 1440, impulseKgSeconds: 36.1, baselineKg: 0.2,
                open: false, sampleCount: 99)
        ], falseStartsDropped: 0)

    static func figures() -> ImportedFigures {
        var figures = ImportedFigures(
            source: "tindeq-app", fileName: "repeaters.zip", testType: "repeaters", testedAt: "2026-03-18 19:51:33",
            importedAt: Fixtures.reference)
        figures.tag = "7:3, 20mm"
        figures.mvcKilograms = 42
        figures.fields = [.init(name: "date", value: "2026-18-03 19:51:33"), .init(name: "mvc", value: "42")]
        figures.reps = [
            .init(set: 1, rep: 0, averageKilograms: 29, peakKilograms: 30, medianKilograms: nil),
            .init(set: 1, rep: 1, averageKilograms: 29, peakKilograms: 30, medianKilograms: nil),
        ]
        figures.thresholdCrossings = [.init(timeSeconds: 0.6375, weightKilograms: 3.1)]
        return figures
    }

    @Test("the app's figures are stored with the recording and read back as they were", arguments: StoreKind.allCases)
    func storedAndReadBack(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let id = try fixture.store.saveImportedRecording(
            Self.recording, samples: Self.samples, draft: Fixtures.draft(), endedAt: Fixtures.date(minutes: 1),
            figures: Self.figures(), context: AccessContext(), now: Fixtures.reference)
        #expect(try fixture.store.importedFigures(of: id) == Self.figures())
        #expect(try fixture.store.samples(of: id) == Self.samples)
        #expect(try fixture.store.efforts(of: id).map(\.peakKilograms) == [30])
        #expect(try fixture.store.recording(id)?.state == .complete)
    }

    @Test("a recording that was not imported has no figures")
    func notImported() throws {
        let fixture = try StoreFixture(.memory)
        let id = try fixture.store.saveRecording(
            Self.recording, samples: Self.samples, draft: Fixtures.draft(), endedAt: Fixtures.date(minutes: 1),
            context: AccessContext(), now: Fixtures.reference)
        #expect(try fixture.store.importedFigures(of: id) == nil)
    }

    @Test("the free plan's refusal stores neither the recording nor its figures", arguments: StoreKind.allCases)
    func refusalStoresNothing(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        for minute in 0..<5 {
            _ = try fixture.store.saveImportedRecording(
                Self.recording, samples: Self.samples, draft: Fixtures.draft(minutes: minute),
                endedAt: Fixtures.date(minutes: minute + 1), figures: Self.figures(), context: AccessContext(),
                now: Fixtures.reference)
        }
        #expect(throws: GripStoreError.self) {
            try fixture.store.saveImportedRecording(
                Self.recording, samples: Self.samples, draft: Fixtures.draft(minutes: 9), endedAt: Fixtures.date(minutes: 10),
                figures: Self.figures(), context: AccessContext(), now: Fixtures.reference)
        }
        let counts = try fixture.store.writer.read { db in
            [try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM recording"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM importedFigures"),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM importedRep")]
        }
        #expect(counts == [5, 5, 10])
    }

    @Test("deleting an imported recording deletes its figures and reps")
    func deleteCascades() throws {
        let fixture = try StoreFixture(.file)
        let id = try fixture.store.saveImportedRecording(
            Self.recording, samples: Self.samples, draft: Fixtures.draft(), endedAt: Fixtures.date(minutes: 1),
            figures: Self.figures(), context: AccessContext(), now: Fixtures.reference)
        #expect(try fixture.store.delete(id))
        let left = try fixture.store.writer.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM importedFigures") ?? -1)
                + (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM importedRep") ?? -1)
        }
        #expect(left == 0)
    }
}
