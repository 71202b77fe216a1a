import Synchronization

/// The sync service's sleep between pushes, which a saved recording can cut short.
///
/// Why not an `AsyncStream`: cancelling a task that waits on a stream's iterator finishes the stream for good, and
/// the sleep here is raced against the timer (and so cancelled) every interval.
final class SyncWake: Sendable {
    private struct State {
        var signalled = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Wakes the current or the next `wait` (signals while nobody waits coalesce into one).
    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.signalled = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns after `duration`, on a signal, or on cancellation, whichever comes first.
    func wait(atMost duration: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: duration) }
            group.addTask { await self.signalled() }
            await group.next()
            group.cancelAll()
        }
    }

    private func signalled() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    // Checked under the lock the cancellation handler takes too, so no cancellation slips between.
                    if state.signalled || Task.isCancelled {
                        state.signalled = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }?.resume()
        }
    }
}
