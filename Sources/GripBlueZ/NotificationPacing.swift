import Synchronization

/// How soon an AcquireNotify datagram must reach the notification handler: the moment it arrives, or within a
/// batch interval, drained by the thread that consumes the notifications.
///
/// Reading each datagram as it arrives wakes the D-Bus thread once per notification (80–250 times a second) and,
/// through the ring, the consumer as often. When nobody needs each sample at once (displays get SAMPLES at 25 Hz,
/// the recorder commits twice a second), the socket is instead drained every `batchInterval`: the kernel queues the
/// datagrams meanwhile (an AF_UNIX socketpair holds about 270 small ones, over a second at 250 Hz) and stamps each
/// with its arrival time (`SO_TIMESTAMPNS`), so a sample's host time is when it arrived, not when it was read.
/// StartNotify's `Value` signals are D-Bus messages and always arrive as sent; pacing applies to acquired sockets.
///
/// Who drains: the owner, on its own thread (`drainIfDue()`), not the D-Bus thread. The owner's thread wakes once
/// per batch anyway to process the notifications; if the D-Bus thread drained, each batch would cost a second
/// thread's wake-up and the eventfd write that hands over to the first (a large share of griptrackd's CPU
/// while streaming, Benchmarks/README.md). The connection decides when draining starts (two datagrams less
/// than a batch interval apart, read on arrival) and it stops (`DeviceConnection.emptyDrainsBeforeStop`, a switch
/// to immediate, a closed socket); the owner only runs the drains:
///
/// ```swift
/// pacing.setOwnerWake { ring.wakeConsumer() }
/// while running {
///     ring.waitForData(timeoutMicros: pacing.microsUntilDrain())
///     pacing.drainIfDue()  // the notifications reach the handler here, on this thread
///     // … process what the ring holds
/// }
/// ```
///
/// The owner (the daemon) says which pace it needs, from any thread; the connection applies a change at its next
/// notification or drain, at most `batchInterval` later. One pacing serves one connection at a time.
public final class NotificationPacing: Sendable {
    /// The drain period while batched.
    public let batchInterval: Duration
    /// `batchInterval` in µs, the unit of arrival times.
    package let batchMicros: Int64
    private let immediate: Atomic<Bool>
    /// Mirrors `schedule.drain != nil`, so the owner's per-wake-up check and the socket server take no lock.
    private let draining = Atomic<Bool>(false)
    private let schedule = Mutex(Schedule())

    private struct Schedule {
        /// Runs one drain on the caller's thread; set while a socket is drained in batches.
        var drain: (@Sendable () -> Void)?
        /// The socket `drain` reads (its owner object, which the closure keeps alive).
        var socket: ObjectIdentifier?
        /// When the next drain is due (µs, CLOCK_MONOTONIC).
        var dueMicros: Int64 = 0
        /// Wakes the owner's thread when draining starts, so it begins waiting with a timeout.
        var wakeOwner: (@Sendable () -> Void)?
    }

    /// - Parameters:
    ///   - batchInterval: how often a batched socket is drained (40 ms: one SAMPLES batch).
    ///   - immediate: the starting choice.
    public init(batchInterval: Duration = .milliseconds(40), immediate: Bool = false) {
        self.batchInterval = batchInterval
        let (seconds, attoseconds) = batchInterval.components
        self.batchMicros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        self.immediate = Atomic(immediate)
    }

    /// Whether each datagram must be read as it arrives.
    public var isImmediate: Bool { immediate.load(ordering: .relaxed) }

    /// Chooses reading on arrival (`true`) or draining every `batchInterval` (`false`).
    public func setImmediate(_ value: Bool) { immediate.store(value, ordering: .relaxed) }

    /// Whether a socket is being drained in batches right now: then notifications arrive in bursts every
    /// `batchInterval`, and whoever receives them downstream can wake per burst instead of on a schedule of its own.
    public var isDraining: Bool { draining.load(ordering: .relaxed) }

    // MARK: The owner's side

    /// Sets how the connection wakes the owner's thread when draining starts (it may be asleep without a timeout).
    /// Any thread; call it before the connection runs.
    public func setOwnerWake(_ wake: @escaping @Sendable () -> Void) {
        schedule.withLock { $0.wakeOwner = wake }
    }

    /// How long until the next drain is due (µs, 0: now), or nil while no socket is drained in batches: then wait
    /// for notifications without a time limit (they arrive on the D-Bus thread and wake the owner as usual).
    /// - Important: Owner's thread; costs one relaxed load when not draining.
    public func microsUntilDrain() -> Int64? {
        guard isDraining else { return nil }
        let now = Clock.monotonicMicros()
        return schedule.withLock { $0.drain == nil ? nil : max(0, $0.dueMicros - now) }
    }

    /// Drains the socket if a drain is due: every datagram queued since the last one reaches the notification
    /// handler on this thread, with its arrival time. A late drain does not shift the later ones (as long as it is
    /// less than a batch interval late).
    /// - Important: Owner's thread.
    public func drainIfDue() {
        guard isDraining else { return }
        let now = Clock.monotonicMicros()
        let due = schedule.withLock { schedule -> (@Sendable () -> Void)? in
            guard let drain = schedule.drain, now >= schedule.dueMicros else { return nil }
            schedule.dueMicros += batchMicros
            if schedule.dueMicros <= now { schedule.dueMicros = now + batchMicros }
            return drain
        }
        due?()
    }

    // MARK: The connection's side

    /// Starts draining `socket` with `drain`, the first one a batch interval from now, and wakes the owner.
    func beginDrains(of socket: AnyObject, _ drain: @escaping @Sendable () -> Void) {
        let wake = schedule.withLock { schedule in
            schedule.drain = drain
            schedule.socket = ObjectIdentifier(socket)
            schedule.dueMicros = Clock.monotonicMicros() + batchMicros
            draining.store(true, ordering: .relaxed)
            return schedule.wakeOwner
        }
        wake?()
    }

    /// Stops draining `socket` (a drain already under way finishes). Does nothing if another socket is drained by
    /// now: a drain that ran late must not stop its successor's.
    func endDrains(of socket: AnyObject) {
        schedule.withLock { schedule in
            guard schedule.socket == ObjectIdentifier(socket) else { return }
            schedule.drain = nil
            schedule.socket = nil
            draining.store(false, ordering: .relaxed)
        }
    }
}
