import Glibc
import GripBlueZ
import GripStream
import Synchronization

/// When the pipeline last saw effort activity, and whether an effort is under way, for the radio's idle stop.
///
/// The consumer stores the host time (µs, CLOCK_MONOTONIC, the ring's time base) of the entry that started or
/// ended an effort, at most once per batch; the control task reads it on its ticks. Relaxed atomics: the values are
/// hints compared against a minutes-long gap, so no ordering with other memory is needed.
final class EffortActivity: Sendable {
    private let lastMicros = Atomic<Int64>(0)
    private let open = Atomic<Bool>(false)

    /// Consumer thread: an effort started (`open`) or ended at `micros`.
    func noteEffort(atHostMicros micros: Int64, open isOpen: Bool) {
        open.store(isOpen, ordering: .relaxed)
        lastMicros.store(micros, ordering: .relaxed)
    }

    /// Host µs of the last effort start or end; 0 before the first.
    var lastEffortMicros: Int64 { lastMicros.load(ordering: .relaxed) }

    /// Whether the last effort has started and not ended: a pull longer than the session gap is still activity.
    var effortOpen: Bool { open.load(ordering: .relaxed) }
}
