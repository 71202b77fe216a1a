// A whole replay, as `griptrack replay --speed max` runs it minus process start-up and the report: one pass over a
// 73-minute simulated training session (360,831 samples, 95 efforts, the u32 clock wrap) through reader thread →
// ring → the consumer loop (decode → device clock → segmenter) → a sink that counts samples. One iteration is one whole replay: samples per second are
// 360,831 / wall clock (README.md). The capture is rendered once, to a temporary file, when the suite starts.

import Benchmark
import Foundation
import GripSimulator
import GripStream

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        // No ARC metrics: their runtime hooks crash on Swift 6.3 (see README.md).
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(10),
        maxIterations: 20
    )
    guard let entry = CaptureCatalog.benchmarks.first(where: { $0.name == "progressor-long-73min" }) else { return }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("griptrack-bench-long-73min.btsnoop").path
    let bytes = entry.session.render()
    FileManager.default.createFile(atPath: path, contents: Data(bytes))
    let samples = replaySamples(path: path)

    Benchmark(
        "Replay 73-minute capture, one pass (samples)",
        configuration: .init(scalingFactor: .one, thresholds: nil)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            precondition(replaySamples(path: path) == samples, "the replay is deterministic")
        }
    }
}

/// One replay of the capture at `path`: its sample count (0 when it cannot be replayed).
private func replaySamples(path: String) -> Int {
    var sink = SampleCount()
    guard (try? CaptureReplay.run(path: path, sink: &sink)) != nil else { return 0 }
    return sink.samples
}
