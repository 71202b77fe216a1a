import Foundation
import GripAnalysis
import GripStore

/// The store benchmarks' data: synthetic 80 Hz recordings and a cached database of 10,000 recordings holding
/// 10 million samples (1,000 samples and 3 efforts each, one every 90 minutes over about 21 months).
///
/// Shared by the ordo-one benchmark target and any ad-hoc harness, so both measure the same thing.
enum StoreFixture {
    static let recordings = 10_000
    static let samplesPerRecording = 1_000
    static let effortsPerRecording = 3
    /// Where the big database is built once and reused (delete it to rebuild).
    static let cachedDatabasePath = "/tmp/griptrack-bench-10k-recordings.db"

    static let everyoneIsPro = AccessContext(bypass: true)

    /// A recording of `count` samples at 80 Hz (12 500 µs apart) with three 3 s pulls, seeded so each differs.
    static func recording(samples count: Int, seed: Int) -> (Recording, [StoredSample]) {
        var samples: [StoredSample] = []
        samples.reserveCapacity(count)
        let step: Int64 = 12_500
        let peak = Float(20 + (seed % 17))
        let pullLength = max(1, count / (effortsPerRecording * 2))
        var efforts: [Effort] = []
        for index in 0..<count {
            let phase = index % (2 * pullLength)
            let pulling = phase >= pullLength / 2 && phase < pullLength / 2 + pullLength
            let noise = Float((index &* 2_654_435_761 &+ seed) % 97) / 970
            samples.append(StoredSample(micros: Int64(index) * step, kilograms: (pulling ? peak : 0.3) + noise))
        }
        for effortIndex in 0..<effortsPerRecording {
            let start = Int64(effortIndex * 2 * pullLength + pullLength / 2) * step
            let end = start + Int64(pullLength) * step
            efforts.append(Effort(
                startMicros: start, endMicros: end, durationMicros: end - start, peakKg: peak + 0.09,
                peakMicros: start + 250_000, meanKg: peak, timeToPeakMicros: 250_000, rfdKgPerSecond: 120,
                impulseKgSeconds: Double(peak) * Double(end - start) / 1e6, baselineKg: 0.3, open: false,
                sampleCount: pullLength))
        }
        let recording = Recording(
            startMicros: 0, endMicros: Int64(count - 1) * step, efforts: efforts, falseStartsDropped: 0)
        return (recording, samples)
    }

    /// Start time of recording `index`: every 90 minutes from 2024-01-01.
    static func startedAt(_ index: Int) -> Date {
        Date(timeIntervalSince1970: 1_704_067_200 + Double(index) * 5_400)
    }

    /// Saves one whole recording (admission, samples in 0.5 s chunks, efforts, summary: one transaction).
    @discardableResult
    static func save(_ store: RecordingStore, index: Int, samples count: Int) throws -> RecordingID {
        let (recording, samples) = Self.recording(samples: count, seed: index)
        let start = startedAt(index)
        return try store.saveRecording(
            recording, samples: samples,
            draft: RecordingDraft(startedAt: start, device: "bench", profile: "Tindeq Progressor"),
            endedAt: start.addingTimeInterval(Double(count) / 80), context: everyoneIsPro, now: start)
    }

    /// The 10,000-recording database, built on first use (takes a while) and cached in /tmp.
    static func bigStore() throws -> RecordingStore {
        if !FileManager.default.fileExists(atPath: cachedDatabasePath) {
            let building = cachedDatabasePath + ".building"
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: building + suffix) }
            let store = try RecordingStore(path: building)
            for index in 0..<recordings {
                try save(store, index: index, samples: samplesPerRecording)
            }
            _ = try store.checkIntegrity()
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: building + suffix) }
            try FileManager.default.moveItem(atPath: building, toPath: cachedDatabasePath)
        }
        return try RecordingStore(path: cachedDatabasePath)
    }

    /// Trends as `griptrack trends` computes them (local day keys, weeks from Monday).
    static func trends(_ store: RecordingStore) throws -> Trends {
        let recordings = try store.analysedRecordings(limit: nil)
        return Trends(
            recordings.map { Trends.Entry(day: Int($0.startedAt.timeIntervalSince1970 / 86_400), recording: $0.recording) },
            weekStartDay: 4)
    }

    /// File bytes per stored sample (pages in use × page size ÷ samples) and encoded blob bytes per sample.
    static func bytesPerSample(_ store: RecordingStore, path: String) throws -> (file: Double, encoded: Double) {
        let statistics = try store.statistics(limit: nil)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let fileBytes = (attributes[.size] as? NSNumber)?.doubleValue ?? 0
        var encoded = 0
        for row in try store.listRecordings(limit: 50).visible {
            encoded += try store.sampleStorage(of: row.id).encodedBytes
        }
        let sampled = 50 * samplesPerRecording
        return (fileBytes / Double(statistics.samples), Double(encoded) / Double(sampled))
    }
}
