import Glibc
import GripBlueZ
import GripStream
import Synchronization

/// The radio's producer end of the ring: the one way its three pushing threads reach it, one at a time.
///
/// Handles: BlueZ exposes characteristics as D-Bus object paths, not ATT handles (and the handle in a path such as
/// `…/service000b/char000c` changes with firmware and after Service Changed), while the ring and the processor key
/// frames by a `UInt16` handle that must stay the same for the whole stream. So the radio uses two synthetic,
/// fixed handles: every notification of the data characteristic is pushed as `forceHandle`, every command the
/// daemon writes to the control point as `controlHandle`, and the pipeline is built with those two.
///
/// Three threads push: the D-Bus thread (notifications read as they arrive), the consumer itself (notifications of
/// a paced drain, `NotificationPacing`) and the control task (writes, link events, end of stream). The ring allows
/// exactly one producer at a time, but its invariant 1 lets the producer thread change across a happens-before edge
/// such as a lock hand-off; one `Mutex` around every push provides exactly that edge. The lock is held only for the
/// push itself (a memcpy into a slot), so a pusher waits at most one such copy; nobody sleeps holding it, since the
/// consumer, which would wake a sleeper, may be the next to need it.
final class RadioProducer: Sendable {
    /// The synthetic handle of the data (notify) characteristic.
    static let forceHandle: UInt16 = 1
    /// The synthetic handle of the control point.
    static let controlHandle: UInt16 = 2

    let ring: NotificationRing
    private let producerLock = Mutex<Void>(())

    init(ring: NotificationRing) {
        self.ring = ring
    }

    /// D-Bus thread or (paced drain) consumer: copies one notification in; a full ring drops and counts it.
    /// - Important: HOT PATH: no allocation, no syscall in the common case, never waits for the consumer.
    func pushNotification(_ bytes: UnsafeRawBufferPointer, hostMicros: Int64) {
        producerLock.withLock { _ in
            _ = ring.tryPush(kind: .notification, handle: Self.forceHandle, hostMicros: hostMicros, value: bytes)
        }
    }

    /// Control task: a command written to the control point, so the decoder knows what a response answers and
    /// START restarts the device clock. Pushed before the write goes out (a response cannot precede it).
    func pushWrite(_ bytes: [UInt8]) {
        let now = DeviceConnection.hostMicros()
        bytes.withUnsafeBytes { raw in
            producerLock.withLock { _ in
                _ = ring.tryPush(kind: .write, handle: Self.controlHandle, hostMicros: now, value: raw)
            }
        }
    }

    /// Control task: the link came up (`.connected`) or went down (`.disconnected`, which closes an open effort as
    /// open). Waits for room: a link event must not be lost.
    func pushLink(up: Bool) {
        push(waiting: up ? .connected : .disconnected)
    }

    /// Shutdown: ends the stream so the consumer drains and returns.
    func pushEndOfStream() {
        push(waiting: .endOfStream)
    }

    /// Retries every millisecond while the ring is full (the consumer is far behind: rare), without the lock.
    private func push(waiting kind: RingEntryKind) {
        let now = DeviceConnection.hostMicros()
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        while producerLock.withLock({ _ in ring.pushIfRoom(kind: kind, handle: 0, hostMicros: now, value: empty) })
            == .full
        {
            usleep(1_000)
        }
    }
}
