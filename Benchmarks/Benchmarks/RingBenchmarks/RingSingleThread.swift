// Push + pop on one thread: the cost of the ring itself without cross-core traffic. One scaled iteration is one
// notification pushed and popped; the consumer pops in batches of 32, as the consumer loop does.

import Benchmark
import GripStream

func registerRingSingleThreadBenchmarks() {
    for frame in benchmarkFrames {
        Benchmark("Ring push+pop, 1 thread, \(frame.label)") { benchmark in
            let ring = NotificationRing(capacityPowerOfTwo: benchmarkRingCapacity)
            defer { ring.close() }
            let burst = 32
            var checksum = 0
            frame.bytes.withUnsafeBytes { value in
                benchmark.startMeasurement()
                var remaining = benchmark.scaledIterations.count
                while remaining > 0 {
                    let count = min(burst, remaining)
                    for index in 0..<count {
                        let pushed = ring.tryPush(
                            kind: .notification, handle: benchmarkHandle, hostMicros: Int64(index), value: value
                        )
                        precondition(pushed)
                    }
                    let popped = ring.popBatch(max: burst) { entry in
                        checksum &+= Int(entry.value[entry.value.count - 1]) &+ Int(entry.hostMicros)
                    }
                    precondition(popped == count)
                    remaining -= count
                }
                benchmark.stopMeasurement()
            }
            blackHole(checksum)
        }
    }
}
