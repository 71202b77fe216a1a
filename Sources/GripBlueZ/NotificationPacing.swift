import Synchronization

/// How soon an AcquireNotify datagram must reach the notification handler: the moment it arrives, or within a
/// batch interval.
///
/// Reading each datagram as it arrives wakes the D-Bus thread once per notification (80–250 times a second) and,
/// through the ring, the consumer as often. When nobody needs each sample at once (displays get SAMPLES at 25 Hz,
/// the recorder commits twice a second), the socket is instead drained on a timer: the kernel queues the datagrams
/// meanwhile (an AF_UNIX socketpair holds about 270 small ones, over a second at 250 Hz) and stamps each with its
/// arrival time (`SO_TIMESTAMPNS`), so a sample's host time is when it arrived, not when it was read.
/// StartNotify's `Value` signals are D-Bus messages and always arrive as sent; pacing applies to acquired sockets.
///
/// The owner (the daemon) says which it needs, from any thread; the D-Bus thread applies a change at its next
/// notification or drain, at most `batchInterval` later.
public final class NotificationPacing: Sendable {
    /// The drain period while batched.
    public let batchInterval: Duration
    /// `batchInterval` in µs, the unit of arrival times.
    let batchMicros: Int64
    private let immediate: Atomic<Bool>
    private let draining = Atomic<Bool>(false)

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

    /// Set by the connection (D-Bus thread) when it starts or stops draining.
    func setDraining(_ value: Bool) { draining.store(value, ordering: .relaxed) }
}
