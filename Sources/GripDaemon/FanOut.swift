import Glibc
import GripStream
import Synchronization

/// Pipeline outputs on their way from the consumer thread to the socket thread.
///
/// Samples are kept as two parallel arrays; every other output remembers how many samples preceded it, so the
/// socket thread can reproduce stream order (samples, then the EFFORT they close) without one allocation per sample.
struct FanOutBatch: Sendable {
    var micros: [Int64] = []
    var kilograms: [Float] = []
    var events: [(samplesBefore: Int, output: StreamOutput)] = []

    var isEmpty: Bool { micros.isEmpty && events.isEmpty }

    mutating func removeAll() {
        micros.removeAll(keepingCapacity: true)
        kilograms.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
    }

    mutating func append(_ output: StreamOutput) {
        if case .sample(let time, let force) = output {
            micros.append(time)
            kilograms.append(force)
        } else {
            events.append((micros.count, output))
        }
    }

    /// Appends `other` after this batch's contents.
    mutating func append(contentsOf other: FanOutBatch) {
        let offset = micros.count
        micros.append(contentsOf: other.micros)
        kilograms.append(contentsOf: other.kilograms)
        events.append(contentsOf: other.events.map { ($0.samplesBefore + offset, $0.output) })
    }
}

/// The bounded, non-blocking hand-off between the consumer thread and the socket thread.
///
/// - The consumer calls `offer` once per popped batch: it takes the lock only if it is free (never waits), moves
///   its batch in if there is room (else counts it as dropped), and signals the wake pipe only when the shared batch
///   was empty, so the socket thread wakes once per hand-off burst, not per sample.
/// - The socket thread calls `take` when the wake pipe is readable.
final class FanOut: Sendable {
    /// The most samples (and, separately, events) waiting for the socket thread.
    let sampleLimit: Int
    let eventLimit: Int
    private let shared: Mutex<FanOutBatch>
    private let watchers = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    /// Signalled by the consumer, watched by the socket thread's poll loop.
    let wake: WakePipe

    init(sampleLimit: Int = 1 << 16, eventLimit: Int = 4096) throws(DaemonError) {
        self.sampleLimit = sampleLimit
        self.eventLimit = eventLimit
        shared = Mutex(FanOutBatch())
        wake = try WakePipe(purpose: "fan-out")
    }

    deinit { wake.close() }

    /// Whether any client watches (the consumer skips buffering otherwise).
    var hasWatchers: Bool { watchers.load(ordering: .relaxed) > 0 }

    func setWatcherCount(_ count: Int) { watchers.store(count, ordering: .relaxed) }

    /// Outputs dropped because the hand-off was full.
    var droppedCount: Int { dropped.load(ordering: .relaxed) }

    /// Consumer thread: hands `batch` over if possible and empties it; never blocks.
    /// - Returns: false if the lock was busy (the batch is kept for the next call).
    @discardableResult
    func offer(_ batch: inout FanOutBatch) -> Bool {
        if batch.isEmpty { return true }
        let result: Bool?? = shared.withLockIfAvailable { shared in
            let wasEmpty = shared.isEmpty
            if wasEmpty {
                swap(&shared, &batch)
            } else if shared.micros.count + batch.micros.count <= sampleLimit
                && shared.events.count + batch.events.count <= eventLimit
            {
                shared.append(contentsOf: batch)
            } else {
                return Optional<Bool>.none
            }
            return wasEmpty
        }
        guard let outcome = result else {
            // Busy: keep the batch unless it alone is too big to ever fit.
            if batch.micros.count > sampleLimit || batch.events.count > eventLimit { drop(&batch) }
            return false
        }
        guard let wasEmpty = outcome else {
            drop(&batch)
            return true
        }
        batch.removeAll()
        if wasEmpty { signal() }
        return true
    }

    /// Socket thread: moves everything waiting into `batch` (which must be empty) and clears the wakeup.
    func take(into batch: inout FanOutBatch) {
        wake.drain()
        shared.withLock { swap(&$0, &batch) }
    }

    private func drop(_ batch: inout FanOutBatch) {
        dropped.add(batch.micros.count + batch.events.count, ordering: .relaxed)
        batch.removeAll()
    }

    private func signal() { wake.signal() }
}
