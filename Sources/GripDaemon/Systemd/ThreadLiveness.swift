import Glibc
import Synchronization

/// Whether griptrackd's own threads still make progress, for the systemd watchdog.
///
/// Each worker thread marks when it starts handling a wake-up and when it goes back to waiting; a thread that has
/// been handling one wake-up for longer than ``limit`` is stuck (a deadlock, an endless loop, a write that never
/// returns), and ``SystemdNotifier`` stops sending WATCHDOG=1 so that systemd restarts the daemon
/// (`WatchdogSec=` in the unit). Why not heartbeats: an idle daemon must not wake up on a timer, and a thread
/// waiting in poll(2) is healthy however long it waits.
///
/// Two relaxed atomic stores and one monotonic clock read per wake-up (vDSO, no syscall).
package final class ThreadLiveness: Sendable {
    /// The threads that are watched.
    package enum Worker: String, Sendable, CaseIterable {
        case socket, consumer, recorder, reader
    }

    /// How long one wake-up may take before the thread counts as stuck.
    package let limit: Duration
    private let now: @Sendable () -> Duration
    // One slot per worker: 0 while it waits, else 1 + the monotonic milliseconds when it woke.
    private let socket = Atomic<Int64>(0)
    private let consumer = Atomic<Int64>(0)
    private let recorder = Atomic<Int64>(0)
    private let reader = Atomic<Int64>(0)

    /// Creates a watcher.
    ///
    /// - Parameters:
    ///   - limit: How long one wake-up may take (a store commit on a slow SD card takes seconds, not tens).
    ///   - now: The monotonic clock (tests pass their own).
    package init(limit: Duration = .seconds(20), now: @escaping @Sendable () -> Duration = ThreadLiveness.monotonic) {
        self.limit = limit
        self.now = now
    }

    /// The thread woke up and handles what woke it.
    @inline(__always)
    package func busy(_ worker: Worker) {
        store(worker, 1 + Self.milliseconds(now()))
    }

    /// The thread goes back to waiting.
    @inline(__always)
    package func idle(_ worker: Worker) {
        store(worker, 0)
    }

    /// The first worker busy with one wake-up for longer than ``limit``, and for how long; nil when all progress.
    package func stuck() -> (worker: Worker, busyFor: Duration)? {
        let nowMillis = Self.milliseconds(now())
        for worker in Worker.allCases {
            let since = load(worker)
            guard since != 0 else { continue }
            let busyFor = Duration.milliseconds(nowMillis - (since - 1))
            if busyFor > limit { return (worker, busyFor) }
        }
        return nil
    }

    /// CLOCK_MONOTONIC as a duration since boot.
    @Sendable
    package static func monotonic() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let components = duration.components
        return components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000
    }

    // Atomics cannot be kept in an array or returned (they are not copyable): one switch each way.
    @inline(__always)
    private func store(_ worker: Worker, _ value: Int64) {
        switch worker {
        case .socket: socket.store(value, ordering: .relaxed)
        case .consumer: consumer.store(value, ordering: .relaxed)
        case .recorder: recorder.store(value, ordering: .relaxed)
        case .reader: reader.store(value, ordering: .relaxed)
        }
    }

    private func load(_ worker: Worker) -> Int64 {
        switch worker {
        case .socket: socket.load(ordering: .relaxed)
        case .consumer: consumer.load(ordering: .relaxed)
        case .recorder: recorder.load(ordering: .relaxed)
        case .reader: reader.load(ordering: .relaxed)
        }
    }
}
