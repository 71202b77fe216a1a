import Foundation
import GRDB
import Testing

@testable import GripStore

/// Rows that griptrack never writes but a damaged or hand-edited database can hold: reading them is an error, never
/// a trap. The inputs are the ones `scripts/fuzz store` found (Fuzz/Corpus/store/regression-*).
@Suite("Damaged rows")
struct DamagedRowTests {
    /// One sample, 22.5 kg, at the chunk's first time.
    static let oneSample = Data([0, 0, 0xB4, 0x41, 0x00])

    @Test("a sample count the blob cannot hold fails before reserving memory for it (regression-codec-huge-count)")
    func hugeCountFails() throws {
        let result = SampleChunkCodec.decode(firstMicros: 1_000_000, count: 0x0707_0707_0707_07, bytes: Self.oneSample)
        #expect(throws: SampleChunkCodec.DecodeFailure.self) { try result.get() }
        #expect(result.failureDetail == "sampleCount 1978051601041159 does not fit a 5-byte blob (5 to 8 bytes per sample)")
    }

    @Test("a negative sample count fails")
    func negativeCountFails() {
        #expect(SampleChunkCodec.decode(firstMicros: 0, count: -1, bytes: Self.oneSample).failureDetail
            == "sampleCount -1 does not fit a 5-byte blob (5 to 8 bytes per sample)")
    }

    @Test("a time step past Int64.max fails, naming the sample and byte")
    func overflowingTimeFails() {
        let bytes = Self.oneSample + Data([0, 0, 0xB4, 0x41, 0x01])
        #expect(SampleChunkCodec.decode(firstMicros: .max, count: 2, bytes: bytes).failureDetail
            == "sample 1 lies past the largest device time (byte 9)")
    }

    @Test("a truncated delta and trailing bytes name their byte offsets")
    func offsetsAreNamed() {
        #expect(SampleChunkCodec.decode(firstMicros: 0, count: 1, bytes: Data([0, 0, 0xB4, 0x41, 0x80])).failureDetail
            == "bad time delta in sample 0 (byte 4)")
        #expect(SampleChunkCodec.decode(firstMicros: 0, count: 1, bytes: Self.oneSample + Data([9, 9, 9, 9, 9])).failureDetail
            == "5 bytes left after 1 samples (byte 5)")
    }

    @Test("a stored chunk with an impossible sample count reads as a corrupt chunk", arguments: StoreKind.allCases)
    func storedHugeCountIsCorrupt(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let id = try fixture.store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll)
        try fixture.store.writer.write { db in
            try db.execute(
                sql: "INSERT INTO sampleChunk (recordingId, sequence, encoding, firstMicros, sampleCount, samples) VALUES (?, 0, 1, 0, ?, ?)",
                arguments: [id.rawValue, 0x0707_0707_0707_07, Self.oneSample])
        }
        #expect(throws: GripStoreError.corruptSampleChunk(
            id, sequence: 0, detail: "sampleCount 1978051601041159 does not fit a 5-byte blob (5 to 8 bytes per sample)")
        ) {
            try fixture.store.samples(of: id)
        }
    }

    /// A store with three sound recordings and one more whose row is then damaged by `sql` (`?` is its id).
    static func storeWithDamagedRow(_ kind: StoreKind, _ sql: String) throws -> (StoreFixture, damaged: Int64) {
        let fixture = try StoreFixture(kind)
        for minutes in [1, 2, 3] {
            let id = try fixture.store.beginRecording(Fixtures.draft(minutes: minutes), admission: Fixtures.admitAll)
            try fixture.store.appendSamples(Fixtures.samples(count: 80), to: id)
            try fixture.store.finishRecording(
                id, summary: RecordingSummaryValues(endedAt: Fixtures.date(minutes: minutes + 1), maxKilograms: 30, averageKilograms: 25),
                efforts: [Fixtures.effort])
        }
        let damaged = try fixture.store.beginRecording(Fixtures.draft(minutes: 4), admission: Fixtures.admitAll)
        try fixture.store.appendSamples(Fixtures.samples(count: 40), to: damaged)
        try fixture.store.writer.write { db in try db.execute(sql: sql, arguments: [damaged.rawValue]) }
        return (fixture, damaged.rawValue)
    }

    static let damages: [(sql: String, reason: String)] = [
        ("UPDATE recording SET startedAt = x'' WHERE id = ?", "startedAt holds Data(0 bytes), not a Date"),  // regression-list-blob-date
        ("UPDATE recording SET startedAt = 'garbage' WHERE id = ?", "startedAt holds \"garbage\", not a Date"),
        ("UPDATE recording SET uuid = 'x' WHERE id = ?", "uuid \"x\" is not a UUID"),
    ]

    @Test("a damaged row is listed as damaged with the reason; every other recording stays readable",
          arguments: StoreKind.allCases, 0..<3)
    func listSkipsDamagedRow(kind: StoreKind, damage: Int) throws {
        let (fixture, damaged) = try Self.storeWithDamagedRow(kind, Self.damages[damage].sql)
        let list = try fixture.store.listRecordings(limit: nil)
        #expect(list.visible.count == 3)
        #expect(list.damaged == [DamagedRecording(id: damaged, reason: Self.damages[damage].reason)])
        #expect(list.hiddenCount == 0)
    }

    @Test("statistics and trends leave a damaged row out instead of trapping", arguments: 0..<3)
    func statisticsAndTrendsSkipDamagedRow(damage: Int) throws {
        let (fixture, _) = try Self.storeWithDamagedRow(.file, Self.damages[damage].sql)
        let statistics = try fixture.store.statistics(limit: nil)
        #expect(statistics.first == Fixtures.date(minutes: 1))
        #expect(statistics.maxKilograms == Fixtures.effort.peakKilograms)
        let trends = try fixture.store.analysedRecordings(limit: nil)
        #expect(trends.count >= 3)
    }

    @Test("samples for a recording in a state this version does not know are refused with an error naming the state")
    func appendToUnknownState() throws {
        let (fixture, damaged) = try Self.storeWithDamagedRow(
            .file, "PRAGMA ignore_check_constraints = ON; UPDATE recording SET state = 'paused' WHERE id = ?")
        let id = RecordingID(rawValue: damaged)
        let expected = GripStoreError.sqlite(
            operation: "save samples of recording \(id)", code: 1, extendedCode: 1,
            message: "unknown recording state 'paused'")
        #expect(throws: expected) { try fixture.store.appendSamples(Fixtures.samples(count: 4), to: id) }
    }

    @Test("doctor finds the damaged row and --repair sets it aside with its samples, deleting nothing")
    func doctorQuarantines() throws {
        let (fixture, damaged) = try Self.storeWithDamagedRow(.file, "UPDATE recording SET startedAt = 'garbage' WHERE id = ?")
        let health = try fixture.store.checkHealth()
        #expect(health.integrity == ["ok"])
        #expect(health.damaged.map(\.id) == [damaged])
        #expect(!health.isHealthy)
        #expect(try fixture.store.quarantine(health.damaged) == [damaged])
        let after = try fixture.store.checkHealth()
        #expect(after.isHealthy)
        #expect(after.quarantined == 1)
        #expect(try fixture.store.listRecordings(limit: nil).damaged.isEmpty)
        let kept = try fixture.store.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT SUM(sampleCount) FROM quarantinedSampleChunk WHERE recordingId = ?", arguments: [damaged])
        }
        #expect(kept == 40, "the quarantined samples are still in the file")
    }
}

extension Result where Failure == SampleChunkCodec.DecodeFailure {
    var failureDetail: String? {
        if case .failure(let failure) = self { return failure.detail }
        return nil
    }
}
