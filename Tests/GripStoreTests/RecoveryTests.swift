import Foundation
import GRDB
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@testable import GripStore

@Suite("Crash recovery", .serialized)
struct RecoveryTests {
    @Test("a recording whose writer died is closed as recovered, keeping every committed chunk", arguments: StoreKind.allCases)
    func abandonedRecordingIsRecovered(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let id = try store.beginRecording(Fixtures.draft(), owner: Fixtures.deadOwner, admission: Fixtures.admitAll)
        let committed = Fixtures.samples(count: 200)
        let commitTime = Fixtures.date(minutes: 2)
        try store.appendSamples(committed, to: id, at: commitTime)

        let recovered: [RecordingID]
        switch kind {
        case .memory: recovered = try store.recoverAbandonedRecordings()
        case .file: recovered = try RecordingStore(path: fixture.path).recoveredOnOpen
        }

        #expect(recovered == [id])
        let row = try #require(try store.recording(id))
        #expect(row.state == .recovered)
        #expect(row.endedAt == commitTime)
        #expect(row.sampleCount == 200)
        #expect(try store.samples(of: id) == committed)
        #expect(try store.recoverAbandonedRecordings() == [])
        #expect(throws: GripStoreError.recordingNotInProgress(id, state: .recovered)) {
            try store.appendSamples(committed, to: id)
        }
    }

    @Test("a recovered recording keeps every effort completed before the crash, and the cut one as open")
    func recoveredRecordingKeepsEfforts() throws {
        let fixture = try StoreFixture(.file)
        let id = try fixture.store.beginRecording(Fixtures.draft(), owner: Fixtures.deadOwner, admission: Fixtures.admitAll)
        // 80 Hz: rest, a 4 s pull to 22 kg, rest, a 4 s pull to 31 kg, rest, then a pull the crash cuts at 18 kg.
        let shape: [(seconds: Double, kg: Float)] = [(3, 0.3), (4, 22), (4, 0.3), (4, 31), (4, 0.3), (2, 18)]
        var samples: [StoredSample] = []
        var micros: Int64 = 0
        for part in shape {
            for _ in 0..<Int(part.seconds * 80) {
                samples.append(StoredSample(micros: micros, kilograms: part.kg))
                micros += 12_500
            }
        }
        // Committed in half-second chunks, as the recorder does.
        for start in stride(from: 0, to: samples.count, by: 40) {
            try fixture.store.appendSamples(Array(samples[start..<min(start + 40, samples.count)]), to: id)
        }

        let reopened = try RecordingStore(path: fixture.path)
        #expect(reopened.recoveredOnOpen == [id])
        let efforts = try reopened.efforts(of: id)
        #expect(efforts.map(\.peakKilograms) == [22, 31, 18])
        #expect(efforts.map(\.isOpen) == [false, false, true])
        let row = try #require(try reopened.recording(id))
        #expect(row.maxKilograms == 31)
        #expect(row.averageKilograms == 26.5)
        #expect(row.state == .recovered)
    }

    @Test("a recording without any committed chunk is recovered ending at its start")
    func emptyAbandonedRecording() throws {
        let fixture = try StoreFixture(.memory)
        let draft = Fixtures.draft(minutes: 7)
        let id = try fixture.store.beginRecording(draft, owner: Fixtures.deadOwner, admission: Fixtures.admitAll)
        #expect(try fixture.store.recoverAbandonedRecordings() == [id])
        #expect(try fixture.store.recording(id)?.endedAt == draft.startedAt)
    }

    @Test("opening the store does not close a recording another live process is writing")
    func liveRecordingIsNotRecovered() throws {
        let fixture = try StoreFixture(.file)
        let id = try fixture.store.beginRecording(Fixtures.draft(), admission: Fixtures.admitAll)
        let second = try RecordingStore(path: fixture.path)
        #expect(second.recoveredOnOpen == [])
        #expect(try second.recording(id)?.state == .recording)
        #expect(throws: GripStoreError.recordingInProgress(id)) { try second.delete(id) }
    }

    @Test("a recovered recording takes the analysis of its samples and stays recovered")
    func recoveredRecordingTakesAnalysis() throws {
        let fixture = try StoreFixture(.memory)
        let id = try fixture.store.beginRecording(Fixtures.draft(), owner: Fixtures.deadOwner, admission: Fixtures.admitAll)
        try fixture.store.recoverAbandonedRecordings()
        let summary = RecordingSummaryValues(endedAt: Fixtures.date(minutes: 4), maxKilograms: 34.75, averageKilograms: 34.75)
        try fixture.store.updateAnalysis(of: id, summary: summary, efforts: [Fixtures.effort])
        try fixture.store.updateAnalysis(of: id, summary: summary, efforts: [Fixtures.effort])
        #expect(try fixture.store.efforts(of: id) == [Fixtures.effort])
        let row = try #require(try fixture.store.recording(id))
        #expect(row.state == .recovered)
        #expect(row.maxKilograms == 34.75)
    }

    @Test("SIGKILL while recording loses nothing committed more than a second before the kill")
    func sigkillWhileRecording() throws {
        let fixture = try StoreFixture(.file)  // creates and migrates the file before the child opens it
        let child = try ChildProcess(["record", fixture.path, "10000"])  // one sample every 10 ms
        var began: Int64 = 0
        #expect(
            child.wait { lines in
                guard let first = lines.first(where: { $0.text.hasPrefix("began ") }) else { return false }
                began = first.micros
                return lines.contains { $0.text.hasPrefix("committed ") && $0.micros - first.micros >= 2_000_000 }
            }, "the child never committed for 2 s: \(child.output.map(\.text))")
        let killedAt = ChildProcess.monotonicMicros()
        #expect(kill(child.pid, SIGKILL) == 0)
        #expect(child.waitForExit() == SIGKILL)
        #expect(child.process.terminationReason == .uncaughtSignal)

        let lines = child.output.map(\.text)
        let id = RecordingID(rawValue: try #require(lines.first.flatMap { Int64($0.dropFirst("began ".count)) }))
        let reported = lines.filter { $0.hasPrefix("committed ") }.map { line in
            line.split(separator: " ").dropFirst().compactMap { Int64($0) }
        }
        let lastReported = try #require(reported.last)

        let reopened = try RecordingStore(path: fixture.path)
        #expect(reopened.recoveredOnOpen == [id])
        #expect(try reopened.checkIntegrity() == ["ok"])
        #expect(try reopened.recording(id)?.state == .recovered)

        let samples = try reopened.samples(of: id)
        // Every sample the child made is there, in order, up to the last commit: none missing, none altered.
        for (index, sample) in samples.enumerated() {
            guard sample.kilograms.bitPattern == StoreCrashChildProtocol.kilograms(index).bitPattern else {
                Issue.record("sample \(index) is \(sample), expected \(StoreCrashChildProtocol.kilograms(index)) kg")
                break
            }
        }
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.micros < $1.micros })
        #expect(samples.count >= Int(lastReported[0]), "the child reported \(lastReported[0]) committed")
        // Samples are stamped with CLOCK_MONOTONIC, the clock the kill time was read from.
        let lastStored = try #require(samples.last).micros
        #expect(
            lastStored >= killedAt - 1_000_000,
            "last stored sample \(killedAt - lastStored) µs before the kill (child ran \(killedAt - began) µs)")
    }
}
