// Producer and consumer on two threads, the way griptrackd and `griptrack replay` use the ring: the benchmark
// thread pushes with `pushWaiting` (the replay path: nothing dropped), a consumer thread sleeps in
// `waitForData` and drains in batches of 64. One scaled iteration is one notification through the ring. Thread
// start-up is outside the measurement; the final join is inside it.

import Benchmark
import GripStream

func registerRingTwoThreadBenchmarks() {
    for frame in benchmarkFrames {
        var configuration = Benchmark.defaultConfiguration
        // Syscalls and context switches show how often the threads slept and woke (the eventfd path).
        configuration.metrics += [.syscalls, .contextSwitches]
        Benchmark("Ring producer/consumer, 2 threads, \(frame.label)", configuration: configuration) { benchmark in
            let ring = NotificationRing(capacityPowerOfTwo: benchmarkRingCapacity)
            defer { ring.close() }
            let total = benchmark.scaledIterations.count
            let consumer = BenchmarkThread {
                var received = 0
                var checksum = 0
                var ended = false
                while !ended {
                    ring.waitForData()
                    _ = ring.popBatch(max: 64) { entry in
                        if entry.kind == .endOfStream {
                            ended = true
                        } else {
                            checksum &+= Int(entry.value[entry.value.count - 1]) &+ Int(entry.hostMicros)
                            received += 1
                        }
                    }
                }
                precondition(received == total, "lost entries: \(received) of \(total)")
                blackHole(checksum)
            }
            frame.bytes.withUnsafeBytes { value in
                benchmark.startMeasurement()
                for index in 0..<total {
                    let pushed = ring.pushWaiting(
                        kind: .notification, handle: benchmarkHandle, hostMicros: Int64(index), value: value
                    )
                    precondition(pushed)
                }
                _ = ring.pushWaiting(kind: .endOfStream, handle: 0, hostMicros: 0, value: UnsafeRawBufferPointer(start: nil, count: 0))
                consumer.join()
                benchmark.stopMeasurement()
            }
        }
    }
}
