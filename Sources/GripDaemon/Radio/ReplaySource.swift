import Foundation
import GripBlueZ
import GripStream
import GripSystem
import Logging
import ServiceLifecycle
import Synchronization

/// Feeds a btsnoop capture into the ring at a fixed pace, like a live source: `tryPush`, so a full ring drops and
/// counts (`ring.dropped`) instead of slowing the capture down. Always ends the stream with `.endOfStream`.
///
/// Like a radio with an acquired notify socket, it hands the notifications over in bursts, one per batch interval,
/// while no watcher takes the immediate pace (``NotificationPacing``): the consumer then wakes once per burst instead
/// of once per notification (``SourceDelivery/pacedReplay(_:)``). Each entry keeps its capture time, so what is
/// decoded, segmented and stored does not change; only when the consumer sees it does.
final class ReplaySource: Service, CustomStringConvertible {
    let path: String
    let speed: Double
    let ring: NotificationRing
    let gate: StartGate
    /// Says whether anyone needs each notification at once; else the replay pushes bursts.
    let pacing: NotificationPacing
    /// Keep the stream open after the capture until shutdown.
    let keepsStreamOpen: Bool
    let logger: Logger
    private let stopping = Atomic<Bool>(false)
    /// Opened at shutdown; a replay that keeps the stream open waits on it.
    private let shutdown = StartGate(open: false)

    var description: String { "ReplaySource" }

    init(
        path: String, speed: Double, ring: NotificationRing, gate: StartGate, pacing: NotificationPacing,
        keepsStreamOpen: Bool = false, logger: Logger
    ) {
        self.path = path
        self.speed = speed
        self.ring = ring
        self.gate = gate
        self.pacing = pacing
        self.keepsStreamOpen = keepsStreamOpen
        self.logger = logger
    }

    /// Whether it pushes bursts while nobody watches at the immediate pace (a replay at full speed does not wait at
    /// all).
    var pushesBursts: Bool { Pacer(speed: .factor(speed)).isPaced }

    func run() async throws {
        async let produced: Void = NamedThread.run(name: "gt-replay") { [self] in produce() }
        try? await gracefulShutdown()
        stopping.store(true, ordering: .relaxed)
        gate.open()
        shutdown.open()
        await produced
    }

    private func produce() {
        gate.wait()
        var pacer = Pacer(speed: .factor(speed))
        let burstNanos = UInt64(pacing.batchMicros) * 1_000
        logger.info("Replay started", metadata: ["replay.path": "\(path)", "replay.speed": "\(speed)"])
        do {
            // CaptureFile.read cannot stop early: once stopping, the rest of the file is read but not pushed.
            _ = try CaptureFile.read(path: path) { event in
                guard !stopping.load(ordering: .relaxed), let entry = RingInput(event) else { return }
                let bursts = !pacing.isImmediate
                // A burst wakes the consumer once, after its last entry: before the sleep up to the next one.
                pacer.wait(untilCaptureMicros: entry.hostMicros, burstNanos: bursts ? burstNanos : nil) {
                    ring.wakeSleepingConsumerAfterBurst()
                }
                entry.value.withUnsafeBytes { bytes in
                    _ = ring.tryPush(
                        kind: entry.kind, handle: entry.handle, hostMicros: entry.hostMicros, value: bytes,
                        wakesConsumer: !bursts)
                }
            }
        } catch {
            logger.warning("Replay stopped at damaged capture", metadata: ["replay.path": "\(path)", "error": "\(error)"])
        }
        ring.wakeSleepingConsumerAfterBurst()
        if keepsStreamOpen {
            logger.info("Replay finished; keeping the stream open until shutdown", metadata: ["replay.path": "\(path)"])
            shutdown.wait()
        }
        _ = ring.pushWaiting(kind: .endOfStream, handle: 0, hostMicros: 0, value: UnsafeRawBufferPointer(start: nil, count: 0))
        logger.info("Replay finished", metadata: ["replay.path": "\(path)", "ring.dropped": "\(ring.dropped)"])
    }
}
