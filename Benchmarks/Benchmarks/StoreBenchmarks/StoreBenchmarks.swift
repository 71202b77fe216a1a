import Benchmark
import Foundation
import GripAnalysis
import GripStore

/// Storage benchmarks (issue 3 part 5): insert throughput, bytes per stored sample, and list / stats / trends on a
/// database of 10,000 recordings and 10 million samples (target: each under 100 ms).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(10))

    // One 60 s, 80 Hz recording (4,800 samples) saved whole: admission, chunks, efforts, summary in one
    // transaction (`replay --save`). Throughput × 4,800 = samples/s.
    Benchmark("insert 4800-sample recording (saveRecording)", configuration: .init(maxIterations: 200)) { benchmark in
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("griptrack-bench-insert-\(UUID()).db").path
        let store = try RecordingStore(path: path)
        benchmark.startMeasurement()
        for iteration in benchmark.scaledIterations {
            try StoreFixture.save(store, index: iteration, samples: 4_800)
        }
        benchmark.stopMeasurement()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    // The live path: a ChunkWriter committing every 0.5 s of device time (44 samples per fsynced commit).
    Benchmark("insert 4800 samples live (ChunkWriter)", configuration: .init(maxIterations: 50)) { benchmark in
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("griptrack-bench-live-\(UUID()).db").path
        let store = try RecordingStore(path: path)
        let (recording, samples) = StoreFixture.recording(samples: 4_800, seed: 1)
        benchmark.startMeasurement()
        for iteration in benchmark.scaledIterations {
            let start = StoreFixture.startedAt(iteration)
            let id = try store.beginRecording(
                RecordingDraft(startedAt: start, device: "bench", profile: "Tindeq Progressor"),
                context: StoreFixture.everyoneIsPro, now: start)
            let writer = ChunkWriter(store: store, recording: id)
            // Four samples at a time, as the recorder hands over the consumer's 40 ms batches (a commit every 44
            // samples, 109 in all); one `append` of all 4,800 would be a single commit.
            for start in stride(from: 0, to: samples.count, by: 4) {
                try writer.append(samples[start..<min(start + 4, samples.count)])
            }
            try writer.finish(
                summary: RecordingSummaryValues(recording, endedAt: start.addingTimeInterval(60)),
                efforts: recording.efforts.enumerated().map { StoredEffort($0.element, index: $0.offset) })
        }
        benchmark.stopMeasurement()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    let big = try? StoreFixture.bigStore()

    Benchmark("list last 5 of 10k recordings (free)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try big?.listRecordings(limit: 5)) }
    }
    Benchmark("list last 20 of 10k recordings (Pro)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try big?.listRecordings(limit: 20)) }
    }
    Benchmark("list all 10k recordings (list --all)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try big?.listRecordings(limit: nil)) }
    }
    Benchmark("stats over 10k recordings / 30k efforts") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try big?.statistics(limit: nil)) }
    }
    Benchmark("trends over 10k recordings / 30k efforts") { benchmark in
        for _ in benchmark.scaledIterations {
            if let big { blackHole(try StoreFixture.trends(big)) }
        }
    }
}
