// A whole replay, as `griptrack replay --speed max` runs it minus process start-up: one pass over a 73-minute
// simulated training session (360,831 samples, 95 efforts, the u32 clock wrap) through reader thread → ring →
// decode → device clock → segmenter → report. One iteration is one whole replay: samples per second are
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
    let samples = (try? CaptureReplay.run(path: path).samples) ?? 0

    Benchmark(
        "Replay 73-minute capture, one pass (samples)",
        configuration: .init(scalingFactor: .one, thresholds: nil)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            let report = try CaptureReplay.run(path: path)
            precondition(report.samples == samples, "the replay is deterministic")
            blackHole(report)
        }
    }
}
