import GripSystem
import Synchronization

/// What travels through a ``HandOff``: samples go to the batch's parallel arrays, everything else is an event.
protocol HandOffEvent: Sendable {
    /// The sample this value carries, or nil for an event.
    var sample: (micros: Int64, kilograms: Float)? { get }
}

/// Values on their way from the consumer thread to another thread (the recorder).
///
/// Samples are kept as two parallel arrays; every other value remembers how many samples preceded it, so the
/// receiving thread can reproduce stream order (samples, then the EFFORT they close) without one allocation per
/// sample.
struct HandOffBatch<Event: HandOffEvent>: Sendable {
    var micros: [Int64] = []
    var kilograms: [Float] = []
    var events: [(samplesBefore: Int, output: Event)] = []

    var isEmpty: Bool { micros.isEmpty && events.isEmpty }

    mutating func removeAll() {
        micros.removeAll(keepingCapacity: true)
        kilograms.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
    }

    mutating func append(_ output: Event) {
        if let (time, force) = output.sample {
            micros.append(time)
            kilograms.append(force)
        } else {
            events.append((micros.count, output))
        }
    }

    /// Appends a sample (no event wrapping, for the hot path).
    mutating func appendSample(micros time: Int64, kilograms force: Float) {
        micros.append(time)
        kilograms.append(force)
    }

    /// Appends `other` after this batch's contents.
    mutating func append(contentsOf other: HandOffBatch) {
        let offset = micros.count
        micros.append(contentsOf: other.micros)
        kilograms.append(contentsOf: other.kilograms)
        events.append(contentsOf: other.events.map { ($0.samplesBefore + offset, $0.output) })
    }
}

/// The bounded, non-blocking hand-off between the consumer thread and one receiving thread (the recorder's feed).
///
/// - The consumer calls `offer` once per popped batch: it takes the lock only if it is free (never waits), moves
///   its batch in if there is room (else counts it as dropped), and signals the wake pipe only as the receiver's
///   `SampleWake` says (by default when the shared batch was empty: once per hand-off burst, not per sample).
/// - At each `take` the receiver says what should wake it next (``SampleWake``): any hand-off, or events only while
///   it takes samples on its own schedule (the recorder on its commit tick), or events and a backlog of samples (the
///   recorder while nothing is recorded).
///   The first event after a take always wakes it.
/// - The receiver calls `take` when the wake pipe is readable, and whenever its own schedule says.
final class HandOff<Event: HandOffEvent>: Sendable {
    /// What wakes the receiver for samples until its next `take`.
    enum SampleWake: Sendable, Equatable {
        /// The first hand-off after the take.
        case any
        /// None while the receiver comes back on its own: if this take had samples (else as `.any`).
        case onOwnSchedule
        /// Only once this many samples wait (the recorder's pre-roll window, which only needs them eventually).
        case backlog(Int)
    }

    /// The most samples (and, separately, events) waiting for the receiver.
    let sampleLimit: Int
    let eventLimit: Int
    private struct Shared: Sendable {
        var batch = HandOffBatch<Event>()
        /// What wakes the receiver for samples, as its last take said (`.onOwnSchedule` only if that take had samples).
        var sampleWake = SampleWake.any
    }
    private let shared: Mutex<Shared>
    private let dropped = Atomic<Int>(0)
    /// Signalled by the consumer, watched by the receiver's poll loop.
    let wake: WakePipe

    init(sampleLimit: Int = 1 << 16, eventLimit: Int = 4096, purpose: String) throws(DaemonError) {
        self.sampleLimit = sampleLimit
        self.eventLimit = eventLimit
        shared = Mutex(Shared())
        wake = try WakePipe(daemonPurpose: purpose)
    }

    deinit { wake.close() }

    /// Outputs dropped because the hand-off was full.
    var droppedCount: Int { dropped.load(ordering: .relaxed) }

    /// Consumer thread: hands `batch` over if possible and empties it; never blocks.
    /// - Returns: false if the lock was busy (the batch is kept for the next call).
    @discardableResult
    func offer(_ batch: inout HandOffBatch<Event>) -> Bool {
        if batch.isEmpty { return true }
        let result: Bool?? = shared.withLockIfAvailable { shared in
            let wasEmpty = shared.batch.isEmpty
            let hadEvents = !shared.batch.events.isEmpty
            let samplesBefore = shared.batch.micros.count
            if wasEmpty {
                swap(&shared.batch, &batch)
            } else if shared.batch.micros.count + batch.micros.count <= sampleLimit
                && shared.batch.events.count + batch.events.count <= eventLimit
            {
                shared.batch.append(contentsOf: batch)
            } else {
                return Optional<Bool>.none
            }
            let firstEvent = !hadEvents && !shared.batch.events.isEmpty
            switch shared.sampleWake {
            case .any: return wasEmpty
            case .onOwnSchedule: return firstEvent
            case .backlog(let count): return firstEvent || (samplesBefore < count && shared.batch.micros.count >= count)
            }
        }
        guard let outcome = result else {
            // Busy: keep the batch unless it alone is too big to ever fit.
            if batch.micros.count > sampleLimit || batch.events.count > eventLimit { drop(&batch) }
            return false
        }
        guard let wakes = outcome else {
            drop(&batch)
            return true
        }
        batch.removeAll()
        if wakes { signal() }
        return true
    }

    /// Receiving thread: moves everything waiting into `batch` (which must be empty) and clears the wakeup.
    /// - Parameter next: what wakes the receiver for samples from now on.
    /// - Returns: whether the receiver must come back on its own schedule (`.onOwnSchedule` and samples were taken;
    ///   a take without samples falls back to `.any`, so a stream that stopped costs no scheduled wake-ups).
    @discardableResult
    func take(into batch: inout HandOffBatch<Event>, next: SampleWake = .any) -> Bool {
        wake.drain()
        return shared.withLock { shared in
            swap(&shared.batch, &batch)
            shared.sampleWake = next == .onOwnSchedule && batch.micros.isEmpty ? .any : next
            return shared.sampleWake == .onOwnSchedule
        }
    }

    private func drop(_ batch: inout HandOffBatch<Event>) {
        dropped.add(batch.micros.count + batch.events.count, ordering: .relaxed)
        batch.removeAll()
    }

    private func signal() { wake.signal() }
}
