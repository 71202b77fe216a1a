import GripSystem
import Synchronization

/// A many-writer, one-reader queue whose reader sleeps in `poll(2)`: values are appended under a lock and the wake
/// pipe is written only when the queue was empty, so a burst costs one wakeup.
///
/// The daemon uses it for everything that crosses to a thread with a poll loop: requests from the socket thread to
/// the recorder (`RecorderRequest`), and every asynchronous reply or report back to the socket thread
/// (`DaemonReply`).
final class Mailbox<Value: Sendable>: Sendable {
    private let queue = Mutex<[Value]>([])
    /// Readable while values wait; the reader polls its read end.
    let wake: WakePipe

    /// - Throws: `DaemonError.socket` when the wake pipe cannot be created.
    init(purpose: String) throws(DaemonError) {
        wake = try WakePipe(daemonPurpose: purpose)
    }

    deinit { wake.close() }

    /// Any thread: queues a value and wakes the reader.
    func post(_ value: Value) {
        let wasEmpty = queue.withLock { queue in
            queue.append(value)
            return queue.count == 1
        }
        if wasEmpty { wake.signal() }
    }

    /// The reader: every waiting value, oldest first; clears the wakeup.
    func take() -> [Value] {
        wake.drain()
        return queue.withLock { queue in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
    }
}
