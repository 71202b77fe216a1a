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

    @Test("a recording whose start time is a blob makes the list a damaged-database error (regression-list-blob-date)",
          arguments: StoreKind.allCases)
    func listWithBlobDateIsDamaged(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let id = try fixture.store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll)
        try fixture.store.writer.write { db in
            try db.execute(sql: "UPDATE recording SET startedAt = x'' WHERE id = ?", arguments: [id.rawValue])
        }
        #expect(throws: GripStoreError.sqlite(
            operation: "list recordings", code: 11, extendedCode: 11,
            message: "a recording row is damaged: startedAt holds Data(0 bytes), not a Date")
        ) {
            try fixture.store.listRecordings(limit: nil)
        }
    }

    @Test("a recording whose uuid is not a UUID makes the list a damaged-database error", arguments: StoreKind.allCases)
    func listWithBadUUIDIsDamaged(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let id = try fixture.store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll)
        try fixture.store.writer.write { db in
            try db.execute(sql: "UPDATE recording SET uuid = 'x' WHERE id = ?", arguments: [id.rawValue])
        }
        #expect(throws: GripStoreError.sqlite(
            operation: "list recordings", code: 11, extendedCode: 11,
            message: "a recording row is damaged: uuid \"x\" is not a UUID")
        ) {
            try fixture.store.listRecordings(limit: nil)
        }
    }
}

extension Result where Failure == SampleChunkCodec.DecodeFailure {
    var failureDetail: String? {
        if case .failure(let failure) = self { return failure.detail }
        return nil
    }
}
