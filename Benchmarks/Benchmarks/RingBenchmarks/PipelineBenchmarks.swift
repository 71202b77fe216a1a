// The whole hot path per notification: decode → device clock → effort segmenter, with and without the ring in
// front (push → pop on one thread, bursts of 32 as the consumer drains). One scaled iteration is one notification.
// The frames follow a 5 s on / 5 s off pull pattern so efforts really open and close, with device time increasing.

import Benchmark
import GripStream
import GripWire

/// `count` consecutive WEIGHT_MEAS frames of `samplesPerFrame` samples at the Progressor's ≈11.4 ms tick.
private func pullPatternFrames(count: Int, samplesPerFrame: Int) -> [[UInt8]] {
    var micros: UInt32 = 50_000
    return (0..<count).map { _ in
        var frame: [UInt8] = [0x01, UInt8(8 * samplesPerFrame)]
        for _ in 0..<samplesPerFrame {
            micros &+= 11_400
            let phase = Double(micros % 10_000_000) / 1_000_000
            let kilograms = Float(phase < 5 ? 0.3 + 20 * min(1, phase / 0.3) : 0.3)
            withUnsafeBytes(of: kilograms.bitPattern.littleEndian) { frame += $0 }
            withUnsafeBytes(of: micros.littleEndian) { frame += $0 }
        }
        return frame
    }
}

func registerPipelineBenchmarks() {
    for samplesPerFrame in [2, 20] {
        // Enough frames for several efforts per pass; the pass repeats (a device-clock restart, as after START).
        let frames = pullPatternFrames(count: samplesPerFrame == 2 ? 16_384 : 2_048, samplesPerFrame: samplesPerFrame)

        Benchmark("Pipeline decode+segment, no ring, \(samplesPerFrame) samples/notification") { benchmark in
            var processor = ForceStreamProcessor(profile: TindeqProgressor(), forceHandle: benchmarkHandle, controlHandle: nil)
            var outputs = 0
            benchmark.startMeasurement()
            for iteration in benchmark.scaledIterations {
                frames[iteration % frames.count].withUnsafeBytes { value in
                    processor.process(kind: .notification, handle: benchmarkHandle, hostMicros: 0, value: value) { _ in
                        outputs &+= 1
                    }
                }
            }
            benchmark.stopMeasurement()
            blackHole(outputs)
        }

        Benchmark("Pipeline push→pop→decode→segment, \(samplesPerFrame) samples/notification") { benchmark in
            var processor = ForceStreamProcessor(profile: TindeqProgressor(), forceHandle: benchmarkHandle, controlHandle: nil)
            let ring = NotificationRing(capacityPowerOfTwo: benchmarkRingCapacity)
            defer { ring.close() }
            var outputs = 0
            var next = 0
            let total = benchmark.scaledIterations.count
            benchmark.startMeasurement()
            while next < total {
                let burst = min(32, total - next)
                for offset in 0..<burst {
                    _ = frames[(next + offset) % frames.count].withUnsafeBytes { value in
                        ring.tryPush(kind: .notification, handle: benchmarkHandle, hostMicros: 0, value: value)
                    }
                }
                _ = ring.popBatch(max: burst) { entry in
                    processor.process(kind: entry.kind, handle: entry.handle, hostMicros: entry.hostMicros,
                                      value: entry.value) { _ in outputs &+= 1 }
                }
                next += burst
            }
            benchmark.stopMeasurement()
            blackHole(outputs)
        }
    }
}
