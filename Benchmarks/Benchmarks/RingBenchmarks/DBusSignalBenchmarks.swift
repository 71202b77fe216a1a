// One notification from the parsed D-Bus message to the ring, as griptrackd's D-Bus thread handles it in StartNotify
// mode: the PropertiesChanged signal is matched against the routed characteristic paths, its Value bytes are
// found without decoding the message into Swift values, and the handler pushes them into the ring under the
// producer lock (the daemon's RadioRing does exactly that). One scaled iteration is one notification; the ring is
// drained every 32 so it never fills. Reading the message off the socket is libdbus's and is not measured.
//
// In AcquireNotify mode with the paced drain, the consumer thread instead reads an acquired socket every 40 ms: the
// second benchmark sends each notification into a socket pair (bluetoothd's part, measured too) and drains it every
// 4, about a drain's worth at 80 Hz, through the product's drain loop, into the same locked ring.

import Benchmark
@_spi(Benchmarks) import GripBlueZ
import GripStream
import Synchronization

/// The producer lock and the ring, shared by the probe's handler and the benchmark loop.
private final class LockedRing: Sendable {
    let ring = NotificationRing(capacityPowerOfTwo: benchmarkRingCapacity)
    private let producerLock = Mutex<Void>(())

    func push(_ bytes: UnsafeRawBufferPointer, hostMicros: Int64) {
        producerLock.withLock { _ in
            _ = ring.tryPush(kind: .notification, handle: benchmarkHandle, hostMicros: hostMicros, value: bytes)
        }
    }
}

func registerDBusSignalBenchmarks() {
    for (label, frame) in benchmarkFrames {
        Benchmark("D-Bus signal→ring, \(label)") { benchmark in
            let target = LockedRing()
            defer { target.ring.close() }
            guard let probe = NotificationFastPathProbe(
                path: "/org/bluez/hci0/dev_F0_0D_CA_FE_12_34/service000b/char000c", value: frame,
                handler: { bytes, hostMicros in target.push(bytes, hostMicros: hostMicros) })
            else { fatalError("libdbus could not build the signal") }
            var delivered = 0
            var popped = 0
            benchmark.startMeasurement()
            for iteration in benchmark.scaledIterations {
                if probe.deliver() { delivered &+= 1 }
                if iteration & 31 == 31 { popped &+= target.ring.popBatch(max: 32) { _ in } }
            }
            benchmark.stopMeasurement()
            precondition(delivered == benchmark.scaledIterations.count, "a notification missed the fast path")
            blackHole(popped)
        }
    }
}

func registerAcquiredDrainBenchmarks() {
    for (label, frame) in benchmarkFrames {
        // Two syscalls per notification: a thousand per scaled iteration, not a million.
        Benchmark(
            "acquired socket→ring, paced drain every 4, \(label)", configuration: .init(scalingFactor: .kilo)
        ) { benchmark in
            let target = LockedRing()
            defer { target.ring.close() }
            guard let probe = AcquiredDrainProbe(handler: { bytes, hostMicros in
                target.push(bytes, hostMicros: hostMicros)
            }) else { fatalError("the socket pair or its arrival stamps were refused") }
            var popped = 0
            benchmark.startMeasurement()
            for iteration in benchmark.scaledIterations {
                probe.send(frame)
                if iteration & 3 == 3 { probe.drain() }
                if iteration & 31 == 31 { popped &+= target.ring.popBatch(max: 32) { _ in } }
            }
            benchmark.stopMeasurement()
            blackHole(popped)
        }
    }
}
