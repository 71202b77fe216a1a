import GripStream
import Synchronization

/// A command for the consumer thread, applied between two ring batches.
enum PipelineCommand: Sendable, Equatable {
    /// Open an explicit recording (or make the open one explicit).
    case beginRecording(token: Int)
    /// Close the open recording.
    case endRecording(token: Int)
    /// The radio stopped measuring: the device was idle for the session gap. No sample will come to end an open
    /// automatic recording by the gap, so it ends now; an explicit one stays open. Nobody waits for an outcome.
    case measurementStoppedIdle
}

/// What the consumer did with a command; it reaches the recorder in stream order, after the events the command
/// caused, so the recorder knows exactly which recording a request ended up with.
enum PipelineCommandOutcome: Sendable, Equatable {
    /// `adopted`: a recording was already open and became explicit (no `recordingStarted` was emitted for it).
    /// Otherwise a new one opened at the last sample (its `recordingStarted` came just before), or opens with the
    /// stream's first sample.
    case began(token: Int, adopted: Bool)
    /// The recording ended; if one was open, its closing events came just before (the recorder learns whether one
    /// was from those events, so no flag rides here).
    case ended(token: Int)
}

/// The mailbox through which other threads (the recorder, the radio's device control) hand commands to the consumer
/// thread.
///
/// Posting appends under a lock, raises the `pending` flag and wakes the consumer through the ring
/// (`NotificationRing.wakeConsumer()`), so a consumer asleep on an empty ring applies the command at once. The
/// consumer pays one relaxed load of `pending` per batch; only when it is set does it take the lock.
///
/// Visibility: `post` stores `pending` (release) after appending, then wakes the ring; `waitForData` returns with
/// an acquire on the ring's wake request, so the consumer's next relaxed load of `pending` sees it. A command
/// posted while the consumer is busy is seen by its next load, or at the latest after the next `waitForData`,
/// which returns at once because of the pending wake request.
final class PipelineControl: Sendable {
    private let ring: NotificationRing
    private let mailbox = Mutex<[PipelineCommand]>([])
    private let pending = Atomic<Bool>(false)

    init(ring: NotificationRing) {
        self.ring = ring
    }

    /// Any thread: queues a command and wakes the consumer.
    func post(_ command: PipelineCommand) {
        mailbox.withLock { $0.append(command) }
        pending.store(true, ordering: .releasing)
        ring.wakeConsumer()
    }

    /// Consumer thread, once per batch: whether commands may be waiting.
    // HOT PATH: one relaxed load
    var hasPending: Bool { pending.load(ordering: .relaxed) }

    /// Consumer thread: the waiting commands, oldest first.
    func take() -> [PipelineCommand] {
        // Clear first: a command posted during the take either is in this take or raises the flag again.
        pending.store(false, ordering: .relaxed)
        return mailbox.withLock { commands in
            defer { commands.removeAll(keepingCapacity: true) }
            return commands
        }
    }
}
