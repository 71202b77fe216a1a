import GripSystem
import Synchronization

/// The watchers as the consumer thread sees them, published by the socket thread, and the way back.
///
/// The consumer writes SAMPLES and stream events to watchers itself (``LiveWriter``) rather than handing them to
/// the socket thread: a hand-off woke the socket thread 25 times a second while streaming, a thread switch and
/// three system calls (wake-up write, poll, read) on top of every line's send (docs/design.md). The socket thread
/// keeps everything else about a connection:
///
/// - it publishes who watches at which pace (``publish(batched:immediate:slow:)``) whenever that changes;
/// - it sends the lines for every watcher that other threads produce (DEVICE `state`, RECORDER) itself: they are
///   not on the stream's timeline (a RECORDER report follows the stream event it is about, which the consumer
///   wrote before handing it to the recorder), and it sends them in order with the replies that follow them;
/// - the consumer wakes the socket thread only on trouble (``trouble``): a watcher fell behind (its descriptor must
///   be polled for POLLOUT, the clients' budget checked) or must be dropped.
final class LiveWatchers: Sendable {
    /// The most bytes one client's queue may hold (``ClientOutput/send(_:backlogLimit:ifWatching:)``).
    let backlogLimit: Int
    /// Readable when a watcher fell behind or failed; the socket thread polls its read end.
    let trouble: WakePipe

    private struct Shared: Sendable {
        var batched: [ClientOutput] = []
        var immediate: [ClientOutput] = []
        var slow: [ClientOutput] = []
    }

    private let shared = Mutex(Shared())
    /// Bumped by every publish, so the writer re-reads the lists only when they changed.
    private let generation = Atomic<Int>(0)
    private let troubleSignalled = Atomic<Bool>(false)

    init(backlogLimit: Int) throws(DaemonError) {
        self.backlogLimit = backlogLimit
        trouble = try WakePipe(daemonPurpose: "live trouble")
    }

    deinit { trouble.close() }

    // MARK: Socket thread

    /// Who takes live lines, by pace (each client's own pace is set on its ``ClientOutput`` first).
    func publish(batched: [ClientOutput], immediate: [ClientOutput], slow: [ClientOutput]) {
        shared.withLock { shared in
            shared.batched = batched
            shared.immediate = immediate
            shared.slow = slow
        }
        generation.add(1, ordering: .releasing)
    }

    /// Clears the trouble wake-up; a later ``signalTrouble()`` wakes the socket thread again. Call before looking at
    /// the clients: trouble signalled before this call is seen then, and trouble after it wakes the thread again.
    func clearTrouble() {
        // Pipe first, flag second: the other order could swallow the byte of a signal made in between and leave
        // the flag set, and every later signal would be skipped.
        trouble.drain()
        troubleSignalled.store(false, ordering: .sequentiallyConsistent)
    }

    // MARK: Consumer thread

    /// The publish count, for the writer to notice a change without taking the lock.
    var currentGeneration: Int { generation.load(ordering: .acquiring) }

    /// The current lists.
    func watchers() -> (batched: [ClientOutput], immediate: [ClientOutput], slow: [ClientOutput]) {
        shared.withLock { ($0.batched, $0.immediate, $0.slow) }
    }

    /// Wakes the socket thread (once until it clears the wake-up).
    func signalTrouble() {
        guard !troubleSignalled.exchange(true, ordering: .sequentiallyConsistent) else { return }
        trouble.signal()
    }
}
