// The benchmark suite's entry point: BenchmarkPlugin calls `benchmarks`. Each group lives in its own file and is
// registered here with one line, so adding a group (decode, segment, the whole pipeline) is one file + one line.

import Benchmark

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        // Wall clock and throughput for speed, malloc count for the hot path's "no allocation" contract.
        // No ARC metrics: their runtime hooks crash on Swift 6.3 (tried here; see Benchmarks/README.md).
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        scalingFactor: .mega,
        maxDuration: .seconds(2),
        maxIterations: 1_000
    )
    registerRingSingleThreadBenchmarks()
    registerRingTwoThreadBenchmarks()
    registerPipelineBenchmarks()
    registerDBusSignalBenchmarks()
    registerAcquiredDrainBenchmarks()
}
