import Foundation
import GRDB
import Testing

@testable import GripStore

@Suite("Recordings and samples")
struct SampleStorageTests {
    /// Bit patterns and times that a lossy or naive encoding would change.
    static let awkwardSamples: [StoredSample] = [
        StoredSample(micros: -5, kilograms: -0.0),
        StoredSample(micros: -5, kilograms: 0.0),
        StoredSample(micros: 0, kilograms: Float(bitPattern: 0x7FC0_1234)),  // NaN with a payload
        StoredSample(micros: 1, kilograms: Float(bitPattern: 0xFFA0_0001)),  // signalling NaN, negative
        StoredSample(micros: 268_435_455, kilograms: .infinity),  // largest in-chunk step (2^28 - 1)
        StoredSample(micros: 536_870_911, kilograms: -.infinity),  // a step of exactly 2^28: new chunk
        StoredSample(micros: 100, kilograms: .leastNonzeroMagnitude),  // time goes back: new chunk
        StoredSample(micros: 12_600, kilograms: .greatestFiniteMagnitude),
        StoredSample(micros: Int64.max, kilograms: 1),  // overflowing step: new chunk
        StoredSample(micros: Int64.min, kilograms: 2),
        StoredSample(micros: Int64.min + 12_500, kilograms: 0.1),
    ]

    @Test("begin, append, finish round-trips samples bit for bit and the summary exactly", arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let draft = Fixtures.draft(label: "half crimp")
        let id = try store.beginRecording(draft, admission: Fixtures.admitAll)
        #expect(try store.recording(id)?.state == .recording)

        let samples = Self.awkwardSamples + Fixtures.samples(count: 1_000)
        let writer = ChunkWriter(store: store, recording: id)
        try writer.append(samples)
        let summary = RecordingSummaryValues(endedAt: Fixtures.date(minutes: 3), maxKilograms: 34.75, averageKilograms: 34.75)
        try writer.finish(summary: summary, efforts: [Fixtures.effort])

        #expect(try store.samples(of: id) == samples)
        #expect(try store.efforts(of: id) == [Fixtures.effort])
        let row = try #require(try store.recording(id))
        #expect(
            row
                == RecordingRow(
                    id: id, uuid: draft.uuid, startedAt: draft.startedAt, endedAt: summary.endedAt, device: draft.device,
                    profile: draft.profile, hand: .left, label: "half crimp", state: .complete, maxKilograms: 34.75,
                    averageKilograms: 34.75, sampleCount: samples.count, effortCount: 1
                ))
    }

    @Test("a sample costs at most 8 bytes, and 6 at 80 Hz", arguments: StoreKind.allCases)
    func bytesPerSample(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store

        let steady = try store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll)
        let writer = ChunkWriter(store: store, recording: steady)
        try writer.append(Fixtures.samples(count: 80 * 60))
        try writer.flush()
        let steadyCost = try store.sampleStorage(of: steady)
        #expect(steadyCost.samples == 4_800)
        #expect(steadyCost.bytesPerSample <= 6)  // 5.98: a chunk's first sample needs no time step

        // The worst case: every step is the largest a chunk allows.
        let sparse = try store.beginRecording(Fixtures.draft(minutes: 1), admission: Fixtures.admitAll)
        let worst = (0..<100).map { StoredSample(micros: Int64($0) * SampleChunkCodec.maxDeltaMicros, kilograms: 1) }
        try store.appendSamples(worst, to: sparse)
        let worstCost = try store.sampleStorage(of: sparse)
        #expect(worstCost.bytesPerSample <= 8)
        #expect(try store.samples(of: sparse) == worst)

        let awkward = try store.beginRecording(Fixtures.draft(minutes: 2), admission: Fixtures.admitAll)
        try store.appendSamples(Self.awkwardSamples, to: awkward)
        #expect(try store.sampleStorage(of: awkward).encodedBytes <= 8 * Self.awkwardSamples.count)
    }

    @Test("trimming drops exactly the samples after the instant, committed or buffered, and fixes the count")
    func trimAfterInstant() throws {
        let fixture = try StoreFixture(.memory)
        let id = try fixture.store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll)
        let samples = Fixtures.samples(count: 200)  // 80 Hz from 1 s: 2.4875 s of samples
        let writer = ChunkWriter(store: fixture.store, recording: id)
        try writer.append(samples[..<180])
        try writer.flush()
        try writer.append(samples[180...])  // 20 buffered, not committed
        #expect(writer.bufferedCount == 20)
        let end = samples[99].micros
        #expect(try writer.trim(after: end) == 100)
        #expect(writer.bufferedCount == 0)
        #expect(try fixture.store.samples(of: id) == Array(samples[..<100]))
        #expect(try fixture.store.recording(id)?.sampleCount == 100)
        #expect(try writer.trim(after: end) == 0)
    }

    @Test("the chunk writer never leaves half a second of device time uncommitted")
    func commitCadenceBySampleTime() throws {
        let fixture = try StoreFixture(.memory)
        let id = try fixture.store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll)
        let writer = ChunkWriter(store: fixture.store, recording: id)
        let now = ContinuousClock.now  // host time stands still: only device time triggers commits
        var commits: [ChunkCommit] = []
        let samples = Fixtures.samples(count: 80 * 10)
        for (index, sample) in samples.enumerated() {
            commits += try writer.append(CollectionOfOne(sample), now: now)
            let stored = try #require(try fixture.store.recording(id)).sampleCount
            #expect(stored + writer.bufferedCount == index + 1)
            if writer.bufferedCount > 0 {
                let oldestWaiting = samples[index + 1 - writer.bufferedCount]
                #expect(
                    sample.micros - oldestWaiting.micros < 500_000,
                    "sample at \(oldestWaiting.micros) µs still waits at \(sample.micros) µs")
            }
        }
        // 12.5 ms apart, a chunk closes on its 41st sample (0.5 s after its first): 19 chunks, 21 samples waiting.
        #expect(commits.map(\.sampleCount) == Array(repeating: 41, count: 19))
        #expect(commits.allSatisfy { $0.lastMicros - $0.firstMicros == 500_000 })
        #expect(writer.bufferedCount == 21)
        #expect(try fixture.store.sampleStorage(of: id).chunks == 19)
    }

    @Test("the chunk writer commits after half a second of host time even when device time stalls")
    func commitCadenceByHostTime() throws {
        let fixture = try StoreFixture(.memory)
        let id = try fixture.store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll)
        let writer = ChunkWriter(store: fixture.store, recording: id)
        let start = ContinuousClock.now
        let sample = StoredSample(micros: 7, kilograms: 3)
        #expect(try writer.append([sample], now: start).isEmpty)
        #expect(try writer.flushIfDue(now: start + .milliseconds(499)) == nil)
        #expect(try writer.append([sample], now: start + .milliseconds(499)).isEmpty)
        let commits = try writer.append([sample], now: start + .milliseconds(500))
        #expect(commits.map(\.sampleCount) == [3])
        #expect(writer.bufferedCount == 0)
        #expect(try fixture.store.samples(of: id) == [sample, sample, sample])
    }

    @Test("a finished recording takes no more samples and is not finished twice", arguments: StoreKind.allCases)
    func finishedRecordingIsClosed(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let id = try store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll)
        let summary = RecordingSummaryValues(endedAt: Fixtures.date(minutes: 1), maxKilograms: nil, averageKilograms: nil)
        try store.finishRecording(id, summary: summary, efforts: [])
        #expect(throws: GripStoreError.recordingNotInProgress(id, state: .complete)) {
            try store.appendSamples(Fixtures.samples(count: 3), to: id)
        }
        #expect(throws: GripStoreError.recordingNotInProgress(id, state: .complete)) {
            try store.finishRecording(id, summary: summary, efforts: [])
        }
        #expect(
            GripStoreError.recordingNotInProgress(id, state: .complete).description
                == "Recording \(id) is complete, not being recorded, so it cannot take samples or be finished. "
                + "Start a new recording instead.")
        let missing = RecordingID(rawValue: 999)
        #expect(throws: GripStoreError.recordingNotFound(missing)) { try store.samples(of: missing) }
        #expect(throws: GripStoreError.recordingNotFound(missing)) {
            try store.appendSamples(Fixtures.samples(count: 3), to: missing)
        }
    }

    @Test("deleting a recording removes its efforts and samples", arguments: StoreKind.allCases)
    func deleteCascades(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let id = try store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll)
        try store.appendSamples(Fixtures.samples(count: 100), to: id)
        try store.finishRecording(
            id, summary: RecordingSummaryValues(endedAt: Fixtures.date(minutes: 1), maxKilograms: 34.75, averageKilograms: 34.75),
            efforts: [Fixtures.effort])
        #expect(try store.delete(id))
        #expect(try store.recording(id) == nil)
        #expect(try store.delete(id) == false)
        let leftovers = try store.writer.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sampleChunk") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM effort") ?? -1
            )
        }
        #expect(leftovers == (0, 0))
    }
}

@Suite("Sample storage of rows written by someone else")
struct ForeignSampleRowTests {
    // Fuzz/Corpus/store/regression-real-sample-count: the sum was a real, and GRDB's Int subscript trapped on it.
    @Test("a sampleCount stored as a huge real is measured as a saturated integer, not a trap")
    func realSampleCount() throws {
        let fixture = try StoreFixture(.memory)
        let id = try fixture.store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll)
        let writer = ChunkWriter(store: fixture.store, recording: id)
        try writer.append((0..<100).map { StoredSample(micros: Int64($0) * 12_500, kilograms: 1) })
        _ = try writer.flush()
        try fixture.store.writer.write { db in
            try db.execute(
                sql: "UPDATE sampleChunk SET sampleCount = 4.25e228 WHERE recordingId = ?", arguments: [id.rawValue])
        }
        let storage = try fixture.store.sampleStorage(of: id)
        #expect(storage.samples == Int.max)
        #expect(storage.chunks >= 1)
    }
}

@Suite("Store connections")
struct StoreConnectionTests {
    @Test("every connection, the writer's and a reader's, caps its page cache at 256 KiB",
          arguments: StoreKind.allCases)
    func pageCacheIsCapped(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        // Negative: a size in KiB rather than in pages (SQLite's convention).
        #expect(try fixture.store.writer.write { try Int.fetchOne($0, sql: "PRAGMA cache_size") } == -256)
        #expect(try fixture.store.writer.read { try Int.fetchOne($0, sql: "PRAGMA cache_size") } == -256)
    }
}
